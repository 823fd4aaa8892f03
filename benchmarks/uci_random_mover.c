/* A UCI chess engine that plays a uniformly random legal move at once, for the
 * side-by-side with fastchess in `arena bench -s manager` (docs/performance.md).
 *
 * It is the chess twin of instant_engine.c: its own cost per move is a few
 * microseconds, so what fastchess spends shows.  It knows every rule a legal
 * move needs (castling, en passant, promotion, no move into check); the game's
 * end (mate, stalemate, draws) is fastchess's to judge.  Options:
 *
 *   --stats DIR   on quit or end of input, write DIR/engine-<pid>.txt with
 *                 `cpu_us <user+system CPU of this process>` and
 *                 `moves <bestmove lines written>`, as instant_engine.c does.
 *   --seed N      the random generator's seed (default 1)
 *
 * `position fen FEN` and `go perft N` (the count of legal move sequences of N plies)
 * are there for its tests, which check it against the published perft counts.
 *
 * Build: gcc -O2 -o uci_random_mover uci_random_mover.c   (arena bench does it)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* 0x88 board: square = 16 * rank + file; a square is off the board when (sq & 0x88). */
enum { EMPTY = 0, PAWN = 1, KNIGHT, BISHOP, ROOK, QUEEN, KING, BLACK = 8 };
#define COLOUR(p) ((p) & BLACK)
#define KIND(p) ((p) & 7)

typedef struct {
    unsigned char sq[128];
    int side;     /* 0 white, BLACK black */
    int castling; /* 1 white short, 2 white long, 4 black short, 8 black long */
    int ep;       /* the square a pawn may capture en passant on, or -1 */
} Board;

typedef struct {
    unsigned char from, to, promo; /* promo: a piece kind, 0 for none */
} Move;

static Board board;
static uint64_t rng = 88172645463325252ULL;
static const char *stats_dir = NULL;
static long n_moves = 0;

static const int KNIGHT_STEPS[8] = {33, 31, 18, 14, -33, -31, -18, -14};
static const int KING_STEPS[8] = {1, -1, 16, -16, 17, 15, -17, -15};
static const int BISHOP_STEPS[4] = {17, 15, -17, -15};
static const int ROOK_STEPS[4] = {1, -1, 16, -16};

static uint64_t next_random(void) { /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
}

static void start_position(Board *b) {
    static const int back[8] = {ROOK, KNIGHT, BISHOP, QUEEN, KING, BISHOP, KNIGHT, ROOK};
    memset(b, 0, sizeof *b);
    for (int f = 0; f < 8; f++) {
        b->sq[f] = (unsigned char)back[f];
        b->sq[16 + f] = PAWN;
        b->sq[96 + f] = PAWN | BLACK;
        b->sq[112 + f] = (unsigned char)(back[f] | BLACK);
    }
    b->side = 0;
    b->castling = 15;
    b->ep = -1;
}

/* Is `target` attacked by a piece of colour `by`? */
static int attacked(const Board *b, int target, int by) {
    int pawn_from = by ? 16 : -16; /* a black pawn attacks downwards: it stands above */
    for (int d = -1; d <= 1; d += 2) {
        int s = target + pawn_from + d;
        if (!(s & 0x88) && b->sq[s] == (PAWN | by)) return 1;
    }
    for (int k = 0; k < 8; k++) {
        int s = target + KNIGHT_STEPS[k];
        if (!(s & 0x88) && b->sq[s] == (KNIGHT | by)) return 1;
        s = target + KING_STEPS[k];
        if (!(s & 0x88) && b->sq[s] == (KING | by)) return 1;
    }
    for (int k = 0; k < 8; k++) {
        int step = k < 4 ? BISHOP_STEPS[k] : ROOK_STEPS[k - 4];
        int slider = k < 4 ? BISHOP : ROOK;
        for (int s = target + step; !(s & 0x88); s += step) {
            int p = b->sq[s];
            if (p == EMPTY) continue;
            if (COLOUR(p) == by && (KIND(p) == slider || KIND(p) == QUEEN)) return 1;
            break;
        }
    }
    return 0;
}

static int king_square(const Board *b, int colour) {
    for (int s = 0; s < 128; s++)
        if (!(s & 0x88) && b->sq[s] == (KING | colour)) return s;
    return -1;
}

/* Plays `m` on `b` (it is known to be pseudo-legal); castling and en passant follow from
 * the move itself, as UCI writes them. */
static void make(Board *b, Move m) {
    int p = b->sq[m.from], kind = KIND(p), colour = COLOUR(p);
    if (kind == PAWN && m.to == b->ep) b->sq[m.to + (colour ? 16 : -16)] = EMPTY;
    if (kind == KING && (m.to - m.from == 2 || m.from - m.to == 2)) {
        int rook_from = m.to > m.from ? m.from + 3 : m.from - 4;
        int rook_to = m.to > m.from ? m.from + 1 : m.from - 1;
        b->sq[rook_to] = b->sq[rook_from];
        b->sq[rook_from] = EMPTY;
    }
    b->ep = (kind == PAWN && (m.to - m.from == 32 || m.from - m.to == 32)) ? (m.from + m.to) / 2 : -1;
    b->sq[m.to] = (unsigned char)(m.promo ? (m.promo | colour) : p);
    b->sq[m.from] = EMPTY;
    /* a king or rook that moves, or a rook taken on its square, ends a castling right */
    static const struct { int square, right; } corners[6] = {{4, 3}, {0, 2}, {7, 1}, {116, 12}, {112, 8}, {119, 4}};
    for (int k = 0; k < 6; k++)
        if (m.from == corners[k].square || m.to == corners[k].square) b->castling &= ~corners[k].right;
    b->side ^= BLACK;
}

static int add(Move *out, int n, int from, int to, int promo) {
    out[n].from = (unsigned char)from;
    out[n].to = (unsigned char)to;
    out[n].promo = (unsigned char)promo;
    return n + 1;
}

static int add_pawn(Move *out, int n, int from, int to) {
    int rank = to >> 4;
    if (rank == 0 || rank == 7) {
        for (int promo = QUEEN; promo >= KNIGHT; promo--) n = add(out, n, from, to, promo);
        return n;
    }
    return add(out, n, from, to, 0);
}

static int pseudo_legal(const Board *b, Move *out) {
    int n = 0, us = b->side, them = us ^ BLACK;
    for (int s = 0; s < 128; s++) {
        if (s & 0x88) continue;
        int p = b->sq[s];
        if (p == EMPTY || COLOUR(p) != us) continue;
        switch (KIND(p)) {
        case PAWN: {
            int up = us ? -16 : 16, home = us ? 6 : 1;
            if (!((s + up) & 0x88) && b->sq[s + up] == EMPTY) {
                n = add_pawn(out, n, s, s + up);
                if ((s >> 4) == home && b->sq[s + 2 * up] == EMPTY) n = add(out, n, s, s + 2 * up, 0);
            }
            for (int d = -1; d <= 1; d += 2) {
                int t = s + up + d;
                if (t & 0x88) continue;
                if ((b->sq[t] != EMPTY && COLOUR(b->sq[t]) == them) || t == b->ep) n = add_pawn(out, n, s, t);
            }
            break;
        }
        case KNIGHT:
        case KING: {
            const int *steps = KIND(p) == KNIGHT ? KNIGHT_STEPS : KING_STEPS;
            for (int k = 0; k < 8; k++) {
                int t = s + steps[k];
                if (!(t & 0x88) && (b->sq[t] == EMPTY || COLOUR(b->sq[t]) == them)) n = add(out, n, s, t, 0);
            }
            break;
        }
        default: {
            for (int k = 0; k < 8; k++) {
                int step = k < 4 ? BISHOP_STEPS[k] : ROOK_STEPS[k - 4];
                if ((KIND(p) == BISHOP && k >= 4) || (KIND(p) == ROOK && k < 4)) continue;
                for (int t = s + step; !(t & 0x88); t += step) {
                    if (b->sq[t] != EMPTY && COLOUR(b->sq[t]) == us) break;
                    n = add(out, n, s, t, 0);
                    if (b->sq[t] != EMPTY) break;
                }
            }
        }
        }
    }
    /* castling: the squares between empty, and the king not in check nor passing one */
    int base = us ? 112 : 0, short_right = us ? 4 : 1, long_right = us ? 8 : 2;
    if ((b->castling & short_right) && b->sq[base + 5] == EMPTY && b->sq[base + 6] == EMPTY &&
        !attacked(b, base + 4, them) && !attacked(b, base + 5, them))
        n = add(out, n, base + 4, base + 6, 0);
    if ((b->castling & long_right) && b->sq[base + 1] == EMPTY && b->sq[base + 2] == EMPTY &&
        b->sq[base + 3] == EMPTY && !attacked(b, base + 4, them) && !attacked(b, base + 3, them))
        n = add(out, n, base + 4, base + 2, 0);
    return n;
}

static int legal_moves(const Board *b, Move *out) {
    Move all[256];
    int n = pseudo_legal(b, all), kept = 0;
    for (int k = 0; k < n; k++) {
        Board next = *b;
        make(&next, all[k]);
        if (!attacked(&next, king_square(&next, b->side), next.side)) out[kept++] = all[k];
    }
    return kept;
}

static int square_of(const char *t) {
    if (t[0] < 'a' || t[0] > 'h' || t[1] < '1' || t[1] > '8') return -1;
    return 16 * (t[1] - '1') + (t[0] - 'a');
}

/* The board, side, castling rights and en passant square of a FEN (its counters are not needed). */
static void fen_position(Board *b, const char *fen) {
    static const char pieces[] = "pnbrqk";
    memset(b, 0, sizeof *b);
    b->ep = -1;
    int rank = 7, file = 0;
    const char *p = fen;
    for (; *p && *p != ' '; p++) {
        if (*p == '/') {
            rank--, file = 0;
        } else if (*p >= '1' && *p <= '8') {
            file += *p - '0';
        } else {
            const char *kind = strchr(pieces, *p | 0x20);
            if (kind != NULL && file < 8 && rank >= 0)
                b->sq[16 * rank + file] = (unsigned char)((kind - pieces + 1) | ((*p & 0x20) ? BLACK : 0));
            file++;
        }
    }
    while (*p == ' ') p++;
    b->side = *p == 'b' ? BLACK : 0;
    while (*p && *p != ' ') p++;
    while (*p == ' ') p++;
    for (; *p && *p != ' '; p++) b->castling |= *p == 'K' ? 1 : *p == 'Q' ? 2 : *p == 'k' ? 4 : *p == 'q' ? 8 : 0;
    while (*p == ' ') p++;
    if (*p && *p != '-') b->ep = square_of(p);
}

/* "position startpos|fen FEN [moves m1 m2 ...]" */
static void position(char *line) {
    char *fen = strstr(line, " fen ");
    if (fen != NULL) fen_position(&board, fen + 5);
    else start_position(&board);
    char *moves = strstr(line, " moves");
    if (moves == NULL) return;
    for (char *tok = strtok(moves + 6, " \t\r\n"); tok != NULL; tok = strtok(NULL, " \t\r\n")) {
        int from = square_of(tok), to = square_of(tok + 2);
        if (from < 0 || to < 0) return;
        int promo = 0;
        switch (tok[4]) {
        case 'q': promo = QUEEN; break;
        case 'r': promo = ROOK; break;
        case 'b': promo = BISHOP; break;
        case 'n': promo = KNIGHT; break;
        default: break;
        }
        make(&board, (Move){(unsigned char)from, (unsigned char)to, (unsigned char)promo});
    }
}

static void put(const char *text) {
    size_t len = strlen(text);
    while (len > 0) {
        ssize_t n = write(1, text, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            exit(1);
        }
        text += n;
        len -= (size_t)n;
    }
}

static void go(void) {
    Move moves[256];
    int n = legal_moves(&board, moves);
    if (n == 0) {
        put("bestmove 0000\n");
        return;
    }
    Move m = moves[next_random() % (uint64_t)n];
    static const char promo[8] = {0, 0, 'n', 'b', 'r', 'q', 0, 0};
    char text[16] = "bestmove ";
    char *t = text + 9;
    *t++ = (char)('a' + (m.from & 7));
    *t++ = (char)('1' + (m.from >> 4));
    *t++ = (char)('a' + (m.to & 7));
    *t++ = (char)('1' + (m.to >> 4));
    if (m.promo) *t++ = promo[m.promo];
    *t++ = '\n';
    *t = '\0';
    put(text);
    n_moves++;
}

/* "go perft N": the number of legal move sequences of N plies, for the tests (no bestmove). */
static long perft(const Board *b, int depth) {
    Move moves[256];
    int n = legal_moves(b, moves);
    if (depth <= 1) return depth == 1 ? n : 1;
    long total = 0;
    for (int k = 0; k < n; k++) {
        Board next = *b;
        make(&next, moves[k]);
        total += perft(&next, depth - 1);
    }
    return total;
}

static void write_stats(void) {
    if (stats_dir == NULL) return;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long cpu = ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec;
    char path[4096];
    snprintf(path, sizeof path, "%s/engine-%d.txt", stats_dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (f == NULL) return;
    fprintf(f, "cpu_us %ld\nmoves %ld\n", cpu, n_moves);
    fclose(f);
}

int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--stats") == 0) stats_dir = argv[i + 1];
        else if (strcmp(argv[i], "--seed") == 0) rng ^= strtoull(argv[i + 1], NULL, 10) * 0x9E3779B97F4A7C15ULL;
    }
    start_position(&board);
    static char line[1 << 16]; /* a position line of a long game: 5 bytes a ply */
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (strncmp(line, "uci", 3) == 0 && (line[3] == '\n' || line[3] == '\r' || line[3] == '\0'))
            put("id name uci_random_mover\nid author arena\nuciok\n");
        else if (strncmp(line, "isready", 7) == 0)
            put("readyok\n");
        else if (strncmp(line, "position", 8) == 0)
            position(line);
        else if (strncmp(line, "go perft ", 9) == 0) {
            char text[64];
            snprintf(text, sizeof text, "perft %ld\n", perft(&board, atoi(line + 9)));
            put(text);
        } else if (strncmp(line, "go", 2) == 0)
            go();
        else if (strncmp(line, "quit", 4) == 0)
            break;
    }
    write_stats();
    return 0;
}
