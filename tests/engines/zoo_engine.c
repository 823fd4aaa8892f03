/* The fault zoo in C: a Hex engine (swap off) that misbehaves in one chosen way.
 *
 *     zoo_engine FAULT [N]
 *
 * Plays the first free cell until its N-th "go" (default 1), then:
 *   good         keeps playing
 *   segv         dereferences a null pointer (killed by SIGSEGV)
 *   abort        calls abort() (killed by SIGABRT)
 *   hog          allocates and touches memory without bound; when malloc fails
 *                it says so on stderr and exits 1
 *   partial_exit writes half a line and exits
 *   setsid_child at start-up forks a child that leaves the process group
 *                (setsid), closes its pipes and sleeps forever; then plays well
 *   escape_tree  at start-up double-forks a grandchild that calls setsid and
 *                execs /bin/sleep with an empty environment (no tag to find it
 *                by); then plays well
 *   superscript  answers the handshake with "arenaok \u00b9" (a superscript one)
 *   nul_move     sends its move with a NUL byte after the cell
 * Compiled by the tests into a temporary folder (never committed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

static void note_pid(void) {
    const char *path = getenv("ZOO_PIDS");
    if (path && *path) {
        FILE *f = fopen(path, "a");
        if (f) { fprintf(f, "%d\n", (int)getpid()); fclose(f); }
    }
}

static void first_free(int size, const char *moves, char *cell) {
    for (int row = 1; row <= size; row++)
        for (int col = 0; col < size; col++) {
            char name[8], padded[16];
            snprintf(name, sizeof name, "%c%d", 'a' + col, row);
            snprintf(padded, sizeof padded, " %s ", name);
            if (!strstr(moves, padded)) { strcpy(cell, name); return; }
        }
    strcpy(cell, "a1");
}

int main(int argc, char **argv) {
    const char *fault = argc > 1 ? argv[1] : "good";
    int at = argc > 2 ? atoi(argv[2]) : 1, gos = 0, size = 5;
    static char line[1 << 16], moves[1 << 16] = " ";
    char cell[8];
    note_pid();
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(fault, "setsid_child") && fork() == 0) {
        setsid();
        note_pid();
        close(0); close(1); close(2);
        for (;;) pause();
    }
    if (!strcmp(fault, "escape_tree") && fork() == 0) {
        setsid();
        if (fork() == 0) {
            int null = open("/dev/null", O_RDWR);
            note_pid();
            dup2(null, 0); dup2(null, 1); dup2(null, 2);
            char *args[] = {"sleep", "600", NULL}, *env[] = {NULL};
            execve("/bin/sleep", args, env);
        }
        _exit(0);
    }
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "arena ", 6)) {
            if (!strcmp(fault, "superscript")) {
                printf("id name zoo-c-superscript\narenaok \xc2\xb9\n");
                for (;;) pause();
            }
            printf("id name zoo-c-%s\narenaok 1\n", fault);
        } else if (!strncmp(line, "newgame ", 8)) {
            const char *s = strstr(line, " size=");
            if (s) size = atoi(s + 6);
        } else if (!strncmp(line, "isready", 7)) {
            printf("readyok\n");
        } else if (!strncmp(line, "position ", 9)) {
            const char *m = strstr(line, " moves");
            snprintf(moves, sizeof moves, "%s", m ? m + 6 : " ");
            char *nl = strchr(moves, '\n');
            if (nl) strcpy(nl, " ");
        } else if (!strncmp(line, "go", 2)) {
            if (++gos == at) {
                if (!strcmp(fault, "segv")) { volatile int *p = NULL; *p = 1; }
                if (!strcmp(fault, "abort")) abort();
                if (!strcmp(fault, "hog")) {
                    for (;;) {
                        char *block = malloc(16 << 20);
                        if (!block) { fprintf(stderr, "zoo: out of memory\n"); exit(1); }
                        memset(block, 1, 16 << 20);
                    }
                }
                if (!strcmp(fault, "partial_exit")) { fputs("move a", stdout); fflush(stdout); _exit(0); }
            }
            first_free(size, moves, cell);
            if (gos == at && !strcmp(fault, "nul_move")) {
                printf("move %s", cell);
                fputc(0, stdout);
                fputc('\n', stdout);
                continue;
            }
            printf("move %s\n", cell);
        } else if (!strncmp(line, "quit", 4)) {
            break;
        }
    }
    return 0;
}
