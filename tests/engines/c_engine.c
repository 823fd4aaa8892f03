/* A protocol-v1 engine in C, written from protocol/PROTOCOL.md alone: Hex (with the swap)
 * and Groups.  It keeps the board from the 'position' lines (section 6 for the tokens, the
 * board formulas of section 6 for the cells), swaps as Blue when Red's first stone is off
 * the edges, and otherwise plays a random empty cell (one stone in Groups, always legal),
 * from the referee's seed.  Standard C only; the tests build it with `cc -O2`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXSPAN 51
static char line[1 << 20];           /* a 'position' line may pass 64 KiB (section 1) */
static char game[16] = "hex";
static int size = 11, swap_on = 1, plies = 0, offset = 0;
static int taken[MAXSPAN][MAXSPAN];
static unsigned long long rng = 1;

static unsigned next_random(void) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng >> 33);
}

static int is_hex(void) { return strcmp(game, "hex") == 0; }
static int span(void) { return is_hex() ? size : 2 * size - 1; }

/* Section 6: Hex is the n x n rhombus; a hexhex board with s cells a side is the
 * (2s-1) x (2s-1) rhombus with s-1 <= row + column <= 3s-3 (0-based). */
static int on_board(int r, int c) {
    if (r < 0 || c < 0 || r >= span() || c >= span()) return 0;
    return is_hex() || (r + c >= size - 1 && r + c <= 3 * size - 3);
}

static int parse_cell(const char *s, int *r, int *c) {
    if (s[0] < 'a' || s[0] > 'z' || s[1] < '1' || s[1] > '9') return 0;
    *c = s[0] - 'a';
    *r = atoi(s + 1) - 1;
    return on_board(*r, *c);
}

static void apply(char *move) {
    int r, c;
    char *save, *part;
    if (strcmp(move, "swap") == 0) {   /* section 6: the stone moves to (column, row) */
        for (r = 0; r < span(); r++)
            for (c = 0; c < span(); c++)
                if (taken[r][c]) { taken[r][c] = 0; taken[c][r] = 1; return; }
        return;
    }
    for (part = strtok_r(move, ",", &save); part; part = strtok_r(NULL, ",", &save))
        if (parse_cell(part, &r, &c)) taken[r][c] = 1;
}

static void position(char *rest) {
    char *save, *word = strtok_r(rest, " \n", &save);   /* the setup token: 'start' */
    memset(taken, 0, sizeof taken);
    plies = 0;
    word = strtok_r(NULL, " \n", &save);                 /* 'moves' */
    while ((word = strtok_r(NULL, " \n", &save)) != NULL) {
        apply(word);
        plies++;
    }
}

static void go(void) {
    int r, c, count = 0, pick;
    if (is_hex() && swap_on && plies == 1) {
        for (r = 0; r < size; r++)
            for (c = 0; c < size; c++)
                if (taken[r][c] && r > 0 && c > 0 && r < size - 1 && c < size - 1) {
                    printf("move swap\n");
                    fflush(stdout);
                    return;
                }
    }
    for (r = 0; r < span(); r++)
        for (c = 0; c < span(); c++)
            count += on_board(r, c) && !taken[r][c];
    if (count == 0) { printf("resign\n"); fflush(stdout); return; }
    pick = (int)(next_random() % (unsigned)count);
    for (r = 0; r < span(); r++)
        for (c = 0; c < span(); c++)
            if (on_board(r, c) && !taken[r][c] && pick-- == 0) {
                printf("move %c%d\n", 'a' + c, r + 1);
                fflush(stdout);
                return;
            }
}

static void newgame(char *rest) {
    char *save, *word;
    int i = 0;
    for (word = strtok_r(rest, " \n", &save); word; word = strtok_r(NULL, " \n", &save), i++) {
        if (i == 0) { strncpy(game, word, sizeof game - 1); game[sizeof game - 1] = 0; }
        else if (strncmp(word, "size=", 5) == 0) size = atoi(word + 5);
        else if (strncmp(word, "swap=", 5) == 0) swap_on = strcmp(word + 5, "true") == 0;
    }
    if (size < 1 || span() > MAXSPAN) size = 5;
}

int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        char *rest = strchr(line, ' ');
        rest = rest ? rest + 1 : line + strlen(line);
        if (strncmp(line, "arena ", 6) == 0) {
            printf("id name c-random\nid author arena tests\nid games hex,groups\n"
                   "option name seed_offset type int default 0 min 0 max 1000\narenaok 1\n");
        } else if (strncmp(line, "setoption seed_offset ", 22) == 0) {
            offset = atoi(line + 22);
        } else if (strncmp(line, "newgame ", 8) == 0) {
            newgame(rest);
        } else if (strncmp(line, "seed ", 5) == 0) {
            rng = strtoull(rest, NULL, 10) + (unsigned long long)offset;  /* < 2^63: fits */
        } else if (strncmp(line, "isready", 7) == 0) {
            printf("readyok\n");
        } else if (strncmp(line, "position ", 9) == 0) {
            position(rest);
        } else if (strncmp(line, "go", 2) == 0) {
            go();
        } else if (strncmp(line, "quit", 4) == 0) {
            return 0;
        }
        fflush(stdout);
    }
    return 0;
}
