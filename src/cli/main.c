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

int main(int argc, char **argv)
{
    cuspec_set_warning_handler(print_warning, NULL);
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
        if (cmd == NULL) {
            fprintf(stderr, "cuspec help: unknown command '%s'\n", argv[2]);
            usage(stderr);
            return EXIT_USAGE;
        }
        fputs(cmd->help, stdout);
        return EXIT_OK;
    }
    const struct command *cmd = find(name);
    if (cmd == NULL) {
        fprintf(stderr, "cuspec: unknown %s '%s'\n", name[0] == '-' ? "option" : "command", name);
        usage(stderr);
        return EXIT_USAGE;
    }
    return cmd->run(argc - 1, argv + 1);
}
