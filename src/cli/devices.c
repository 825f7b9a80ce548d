/* cuspec devices: the GPUs the driver sees, and the NVRTC this process would
 * compile with. */
#include "cli.h"
#include "json.h"

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

static json_t *device_json(const cuspec_device_info *d)
{
    char sm[16];
    snprintf(sm, sizeof sm, "sm_%d%d", d->sm_major, d->sm_minor);
    return json_pack("{s:i,s:o,s:s,s:i,s:I,s:i,s:i,s:o,s:i,s:i,s:o}", "ordinal", d->ordinal, "name",
                     cli_json_str(d->name), "sm", sm, "sm_count", d->sm_count, "memory_bytes",
                     (json_int_t)d->total_mem, "memory_bus_bits", d->mem_bus_width,
                     "memory_clock_khz", d->mem_clock_khz, "peak_bandwidth_gbs",
                     cli_json_real("%.1f", d->peak_bandwidth / 1e9), "l2_bytes", d->l2_bytes,
                     "driver_version", d->driver_version, "uuid", cli_json_str(d->uuid));
}

static json_t *nvrtc_json(const cuspec_nvrtc_info *nv)
{
    char version[32];
    json_t *archs = json_array();
    for (int i = 0; i < nv->n_archs; i++)
        json_array_append_new(archs, json_integer(nv->archs[i]));
    snprintf(version, sizeof version, "%d.%d", nv->major, nv->minor);
    return json_pack("{s:o,s:s,s:o}", "path", cli_json_str(nv->path), "version", version, "archs",
                     archs);
}

static void print_device(const cuspec_device_info *d)
{
    const double gib = 1024.0 * 1024.0 * 1024.0;
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

    json_t *devices = json ? json_array() : NULL;
    for (int i = 0; i < count; i++) {
        cuspec_device_info d;
        status = cuspec_device_get_info(i, &d);
        if (status != CUSPEC_OK) {
            json_decref(devices);
            return cli_fail(status, "cannot query device");
        }
        if (json)
            json_array_append_new(devices, device_json(&d));
        else
            print_device(&d);
    }
    if (!json && count == 0)
        printf("No CUDA device: the driver is installed but reports none.\n");

    cuspec_nvrtc_info nv;
    int have_nvrtc = cuspec_nvrtc_get_info(&nv) == CUSPEC_OK;
    if (json) {
        cli_json_print(json_pack("{s:o,s:o}", "devices", devices, "nvrtc",
                                 have_nvrtc ? nvrtc_json(&nv) : json_null()));
    } else if (have_nvrtc) {
        printf("NVRTC %d.%d: %s\n  archs         ", nv.major, nv.minor, nv.path);
        for (int i = 0; i < nv.n_archs; i++)
            printf("%ssm_%d", i ? " " : "", nv.archs[i]);
        putchar('\n');
    } else {
        printf("NVRTC: none (%s)\n", cuspec_last_error());
    }
    return count > 0 ? EXIT_OK : EXIT_NO_GPU;
}

const struct command cmd_devices = {"devices", "list GPUs and the NVRTC found", help, run};
