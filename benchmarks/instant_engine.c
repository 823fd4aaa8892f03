/* An arena protocol v1 engine for Hex that answers at once, for `arena bench`.
 *
 * It plays a uniformly random empty cell (seeded by the referee's `seed`), so
 * its own cost per move is a few microseconds at most and the benchmark sees
 * the manager's cost, not the engine's.  Options (all optional):
 *
 *   --busy-us N   burn N microseconds of CPU per move (a CPU-bound engine)
 *   --sleep-us N  sleep N microseconds per move (an engine that "thinks")
 *   --stats DIR   on quit or end of input, write DIR/engine-<pid>.txt with
 *                 `cpu_us <user+system CPU of this process>` and
 *                 `think_us <t1> <t2> ...`: for every move, the time from
 *                 having read the `go` line to having written the move.
 *
 * Build: gcc -O2 -o instant_engine instant_engine.c   (arena bench does it)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIDE 26
#define MAX_THINKS 1000000

static int size = 11;
static unsigned char occupied[MAX_SIDE * MAX_SIDE];
static uint64_t rng = 88172645463325252ULL;
static long busy_us = 0, sleep_us = 0;
static const char *stats_dir = NULL;
static long *thinks = NULL;
static long n_thinks = 0;

static long now_us(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void put(const char *text, size_t len) {
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

static uint64_t next_random(void) { /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
}

/* Cell index of a token like "e5" (column letter, 1-based row), or -1. */
static int cell_of(const char *tok, size_t len) {
    if (len < 2 || tok[0] < 'a' || tok[0] >= 'a' + size) return -1;
    int row = 0;
    for (size_t i = 1; i < len; i++) {
        if (tok[i] < '0' || tok[i] > '9') return -1;
        row = row * 10 + (tok[i] - '0');
    }
    if (row < 1 || row > size) return -1;
    return (row - 1) * size + (tok[0] - 'a');
}

/* "position start moves m1 m2 ...": mark every stone, honouring a swap. */
static void position(char *line) {
    memset(occupied, 0, sizeof occupied);
    char *moves = strstr(line, " moves");
    if (moves == NULL) return;
    char *p = moves + 6;
    int first = -1, ply = 0;
    while (*p) {
        while (*p == ' ') p++;
        char *tok = p;
        while (*p && *p != ' ') p++;
        size_t len = (size_t)(p - tok);
        if (len == 0) break;
        if (len == 4 && memcmp(tok, "swap", 4) == 0 && ply == 1 && first >= 0) {
            occupied[first] = 0; /* the first stone moves to its mirror cell */
            occupied[(first % size) * size + first / size] = 1;
        } else {
            int cell = cell_of(tok, len);
            if (cell >= 0) occupied[cell] = 1;
            if (ply == 0) first = cell;
        }
        ply++;
    }
}

static void think(void) {
    if (busy_us > 0) {
        long until = now_us(CLOCK_THREAD_CPUTIME_ID) + busy_us;
        volatile uint64_t sink = 0;
        while (now_us(CLOCK_THREAD_CPUTIME_ID) < until)
            for (int i = 0; i < 1000; i++) sink += (uint64_t)i * 2654435761u;
    }
    if (sleep_us > 0) {
        struct timespec ts = {sleep_us / 1000000, (sleep_us % 1000000) * 1000};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
    }
}

static void go(void) {
    long start = now_us(CLOCK_MONOTONIC);
    int empty = 0, cells = size * size;
    for (int i = 0; i < cells; i++) empty += !occupied[i];
    char reply[32];
    int len;
    think();
    if (empty == 0) {
        len = snprintf(reply, sizeof reply, "resign\n");
    } else {
        int k = (int)(next_random() % (uint64_t)empty), cell = 0;
        for (; cell < cells; cell++)
            if (!occupied[cell] && k-- == 0) break;
        len = snprintf(reply, sizeof reply, "move %c%d\n", 'a' + cell % size, cell / size + 1);
    }
    put(reply, (size_t)len);
    if (thinks != NULL && n_thinks < MAX_THINKS) thinks[n_thinks++] = now_us(CLOCK_MONOTONIC) - start;
}

static void write_stats(void) {
    if (stats_dir == NULL) return;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long cpu = ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec
             + ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec;
    char path[4096];
    snprintf(path, sizeof path, "%s/engine-%d.txt", stats_dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (f == NULL) return;
    fprintf(f, "cpu_us %ld\nthink_us", cpu);
    for (long i = 0; i < n_thinks; i++) fprintf(f, " %ld", thinks[i]);
    fprintf(f, "\n");
    fclose(f);
}

static void command(char *line) {
    if (strncmp(line, "go", 2) == 0 && (line[2] == ' ' || line[2] == 0)) {
        go();
    } else if (strncmp(line, "position ", 9) == 0) {
        position(line);
    } else if (strcmp(line, "isready") == 0) {
        put("readyok\n", 8);
    } else if (strncmp(line, "newgame ", 8) == 0) {
        char *opt = strstr(line, " size=");
        size = opt ? atoi(opt + 6) : 11;
        if (size < 1 || size > MAX_SIDE) size = 11;
    } else if (strncmp(line, "seed ", 5) == 0) {
        rng = strtoull(line + 5, NULL, 10) * 0x9E3779B97F4A7C15ULL | 1;
    } else if (strncmp(line, "arena ", 6) == 0) {
        const char *hello = "id name instant\nid author arena bench\narenaok 1\n";
        put(hello, strlen(hello));
    } else if (strcmp(line, "quit") == 0) {
        write_stats();
        exit(0);
    } /* setoption, private, gameover: nothing to do */
}

int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--busy-us") == 0) busy_us = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--sleep-us") == 0) sleep_us = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--stats") == 0) stats_dir = argv[i + 1];
    }
    if (stats_dir != NULL) thinks = malloc(sizeof(long) * MAX_THINKS);
    static char buf[1 << 20];
    size_t have = 0;
    for (;;) {
        ssize_t n = read(0, buf + have, sizeof buf - 1 - have);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        have += (size_t)n;
        size_t start = 0;
        for (size_t i = 0; i < have; i++) {
            if (buf[i] != '\n') continue;
            buf[i] = 0;
            if (i > start && buf[i - 1] == '\r') buf[i - 1] = 0;
            command(buf + start);
            start = i + 1;
        }
        memmove(buf, buf + start, have - start);
        have -= start;
        if (have == sizeof buf - 1) have = 0; /* an absurd line: drop it */
    }
    write_stats();
    return 0;
}
