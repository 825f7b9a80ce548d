/* cuspec devices: the GPUs the driver sees, and the NVRTC this process would
 * compile with. */
#include "cli.h"

#include <getopt.h>
#include <string.h>

static const char help[] =
    "Usage: cuspec devices [--json]\n"
    "\n"
    "Lists each CUDA device: ordinal, name, compute capability (sm_XY), multiprocessors,\n"
    "memory size, memory bus width and clock with the peak bandwidth they imply, L2 size,\n"
    "and the driver's CUDA version; then the NVRTC that compiles kernels (path, version,\n"
    "supported archs), or 'none'.\n"
    "\n"
    "  --json    one JSON object on stdout instead of the table\n"
    "\n"
    "Exit status: 0 when at least one device was listed; 3 when there is no usable\n"
    "driver or no device (the reason is printed); 1 on any other failure.\n";

static void print_archs(FILE *f, const cuspec_nvrtc_info *nv, int json)
{
    for (int i = 0; i < nv->n_archs; i++)
        fprintf(f, json ? "%s%d" : "%ssm_%d", i ? (json ? "," : " ") : "", nv->archs[i]);
}

static void print_device(const cuspec_device_info *d, int json)
{
    const double gib = 1024.0 * 1024.0 * 1024.0;
    if (json) {
        printf("{\"ordinal\":%d,\"name\":", d->ordinal);
        json_string(stdout, d->name);
        printf(",\"sm\":\"sm_%d%d\",\"sm_count\":%d,\"memory_bytes\":%llu,"
               "\"memory_bus_bits\":%d,\"memory_clock_khz\":%d,\"peak_bandwidth_gbs\":%.1f,"
               "\"l2_bytes\":%d,\"driver_version\":%d,\"uuid\":\"%s\"}",
               d->sm_major, d->sm_minor, d->sm_count, (unsigned long long)d->total_mem,
               d->mem_bus_width, d->mem_clock_khz, d->peak_bandwidth / 1e9, d->l2_bytes,
               d->driver_version, d->uuid);
        return;
    }
    printf("GPU %d: %s\n", d->ordinal, d->name);
    printf("  arch          sm_%d%d, %d multiprocessors\n", d->sm_major, d->sm_minor, d->sm_count);
    printf("  memory        %.1f GiB, %d-bit bus at %d MHz: %.0f GB/s peak\n", d->total_mem / gib,
           d->mem_bus_width, d->mem_clock_khz / 1000, d->peak_bandwidth / 1e9);
    printf("  L2            %.1f MiB\n", d->l2_bytes / (1024.0 * 1024.0));
    printf("  driver        CUDA %d.%d\n", d->driver_version / 1000, d->driver_version % 1000 / 10);
    if (d->uuid[0])
        printf("  uuid          %s\n", d->uuid);
}

static int run(int argc, char **argv)
{
    int json = 0, rc = cli_parse_common(&cmd_devices, argc, argv, &json);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return cli_usage(&cmd_devices, "unexpected argument '%s'", argv[optind]);

    int count = 0, status = cuspec_device_count(&count);
    if (status != CUSPEC_OK)
        return cli_fail(status, "cannot list devices");

    if (json)
        printf("{\"devices\":[");
    for (int i = 0; i < count; i++) {
        cuspec_device_info d;
        status = cuspec_device_get_info(i, &d);
        if (status != CUSPEC_OK)
            return cli_fail(status, "cannot query device");
        if (json && i)
            putchar(',');
        print_device(&d, json);
    }
    if (!json && count == 0)
        printf("No CUDA device: the driver is installed but reports none.\n");

    cuspec_nvrtc_info nv;
    int have_nvrtc = cuspec_nvrtc_get_info(&nv) == CUSPEC_OK;
    if (json) {
        printf("],\"nvrtc\":");
        if (have_nvrtc) {
            printf("{\"path\":");
            json_string(stdout, nv.path);
            printf(",\"version\":\"%d.%d\",\"archs\":[", nv.major, nv.minor);
            print_archs(stdout, &nv, 1);
            printf("]}");
        } else {
            printf("null");
        }
        printf("}\n");
    } else if (have_nvrtc) {
        printf("NVRTC %d.%d: %s\n  archs         ", nv.major, nv.minor, nv.path);
        print_archs(stdout, &nv, 0);
        putchar('\n');
    } else {
        printf("NVRTC: none (%s)\n", cuspec_last_error());
    }
    return count > 0 ? EXIT_OK : EXIT_NO_GPU;
}

const struct command cmd_devices = {"devices", "list GPUs and the NVRTC found", help, run};
