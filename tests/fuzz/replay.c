/*
 * replay.c: the main() of a fuzz target in a build without libFuzzer (gcc, the normal
 * build). Runs every file named on the command line, and every file of every directory
 * named (sorted, dot files skipped), through LLVMFuzzerTestOneInput() once. A crash, a
 * sanitizer report or a failed property aborts; a run that found no input at all fails,
 * so a missing corpus is noticed.
 *
 * Usage: fuzz_<target> CORPUS_DIR|FILE...
 */
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int sc__replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct stat st;

    if (!f || fstat(fileno(f), &st) < 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    /* Exactly size bytes, as libFuzzer passes them: a read past the end is an ASan report. */
    uint8_t *data = malloc(size ? size : 1);
    if (!data || fread(data, 1, size, f) != size) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        free(data);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int sc__cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays the regular files of dir in name order. Returns how many, or -1. */
static long sc__replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0;
    long done = 0;

    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char **grown = realloc(names, (n + 1) * sizeof(*names));
        if (!grown || !(grown[n] = strdup(de->d_name))) {
            fprintf(stderr, "replay: out of memory\n");
            exit(1);
        }
        names = grown;
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof(*names), sc__cmp);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (sc__replay_file(path) < 0)
                done = -1;
            else if (done >= 0)
                done++;
        }
        free(names[i]);
    }
    free(names);
    return done;
}

int main(int argc, char **argv)
{
    long total = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR|FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        long n;
        if (stat(argv[i], &st) < 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        n = S_ISDIR(st.st_mode) ? sc__replay_dir(argv[i]) : sc__replay_file(argv[i]) < 0 ? -1 : 1;
        if (n < 0)
            return 1;
        total += n;
    }
    printf("replayed %ld inputs\n", total);
    return total > 0 ? 0 : 1;
}
