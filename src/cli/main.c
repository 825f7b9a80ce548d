/* cuspec: the command-line tool. Dispatches to one subcommand per file, and
 * tells the library's failures and warnings on stderr. */
#include "cli.h"

#include <string.h>

static const struct command *const commands[] = {
    &cmd_devices, &cmd_cache, &cmd_compile, &cmd_bench, &cmd_tune, &cmd_run, &cmd_lessons,
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

static void usage(FILE *f)
{
    fprintf(f, "Usage: cuspec [--help | --version] COMMAND [ARGS]\n"
               "\n"
               "JIT-specialized, autotuned CUDA reductions and transposes.\n"
               "\n"
               "Commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "  %-10s %s\n", "help", "show a command's help: cuspec help COMMAND");
    fprintf(f, "\n"
               "Every command takes:\n"
               "  --help, -h   its help (as 'cuspec help COMMAND')\n"
               "  --quiet, -q  print nothing but errors (and the output --json asks for): no\n"
               "               progress, warnings or summaries\n"
               "  --json       where the command has it: JSON Lines on stdout, each line one\n"
               "               JSON object (UTF-8; bytes of a path or key that are not UTF-8\n"
               "               show as '?'), a list as an array in it, [] when empty\n"
               "\n"
               "Sizes and counts (--n, --shape, --max-bytes, --reps, ...) are written the\n"
               "same way everywhere: 65536, 64K or 64k (K, M, G: powers of 1024), or 2^16.\n"
               "\n"
               "Environment:\n"
               "  CUSPEC_LIBCUDA    path of the CUDA driver library (default libcuda.so.1)\n"
               "  CUSPEC_LIBNVRTC   path of the NVRTC library (default libnvrtc.so.13, .12, ...)\n"
               "  CUSPEC_CACHE_DIR  the kernel store (default $XDG_CACHE_HOME/cuspec or\n"
               "                    ~/.cache/cuspec); see 'cuspec help cache'\n"
               "\n"
               "Exit status: 0 success; 1 the operation failed; 2 bad command line;\n"
               "3 no usable CUDA driver or device.\n");
}

/* The library never prints; its warnings (a store refused or not writable, a
 * bad entry quarantined) are for the person at the terminal. */
static void print_warning(const char *message, void *user)
{
    fprintf(stderr, "cuspec: warning: %s\n", message);
}

int cli_fail(int status, const char *msg)
{
    fprintf(stderr, "cuspec: %s: %s", msg, cuspec_strerror(status));
    const char *detail = cuspec_last_error();
    if (detail[0] != '\0')
        fprintf(stderr, ": %s", detail);
    fputc('\n', stderr);
    return status == CUSPEC_ERR_NO_DRIVER || status == CUSPEC_ERR_DRIVER_TOO_OLD ||
                   status == CUSPEC_ERR_NO_DEVICE
               ? EXIT_NO_GPU
               : EXIT_FAILED;
}

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return NULL;
}

/* "unknown command 'tunee'; did you mean 'tune'?"; 2. A word
 * starting with '-' is matched with the options, else with the commands
 * (and "help", unless it is help's word). */
static int unknown(const char *prefix, const char *word, int with_help)
{
    const char *names[N_COMMANDS + 3] = {"--help", "--version", "--quiet"};
    size_t n = 3;
    if (word[0] != '-') {
        n = 0;
        for (size_t i = 0; i < N_COMMANDS; i++)
            names[n++] = commands[i]->name;
        if (with_help)
            names[n++] = "help";
    }
    char hint[64];
    fprintf(stderr, "%s: unknown %s '%s'%s\nTry 'cuspec --help'.\n", prefix,
            word[0] == '-' ? "option" : "command", word,
            cli_did_you_mean(word, names, n, hint, sizeof hint));
    return EXIT_USAGE;
}

/* Takes --quiet (-q) out of argv, wherever it is (before the first "--"):
 * every command takes it. 1 when it was there. */
static int take_quiet(int *argc, char **argv)
{
    int quiet = 0, out = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        }
        if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0)
            quiet = 1;
        else
            argv[out++] = argv[i];
    }
    *argc = out;
    argv[out] = NULL;
    return quiet;
}

/* --quiet: stdout goes to /dev/null unless --json output is asked for;
 * warnings are dropped, progress is not drawn (cli_quiet). */
static void go_quiet(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        json |= strcmp(argv[i], "--json") == 0;
    cli_quiet = 1;
    cuspec_set_warning_handler(NULL, NULL);
    if (!json && freopen("/dev/null", "w", stdout) == NULL)
        fprintf(stderr, "cuspec: --quiet: cannot open /dev/null\n");
}

int cli_quiet;

int main(int argc, char **argv)
{
    cuspec_set_warning_handler(print_warning, NULL);
    if (take_quiet(&argc, argv))
        go_quiet(argc, argv);
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    /* --version takes no word after it, help one (the command) */
    int help = strcmp(name, "help") == 0;
    if ((help || strcmp(name, "--version") == 0) && argc > 2 + help) {
        fprintf(stderr, "cuspec %s: unexpected '%s'\n", name, argv[2 + help]);
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(name, "--version") == 0) {
        printf("cuspec %s\n", cuspec_version());
        return EXIT_OK;
    }
    if (help) {
        if (argc < 3 || strcmp(argv[2], "help") == 0) {
            usage(stdout);
            return EXIT_OK;
        }
        const struct command *cmd = find(argv[2]);
        if (cmd == NULL)
            return unknown("cuspec help", argv[2], 0);
        fputs(cmd->help, stdout);
        return EXIT_OK;
    }
    const struct command *cmd = find(name);
    if (cmd == NULL)
        return unknown("cuspec", name, 1);
    return cmd->run(argc - 1, argv + 1);
}
