/* Device enumeration and the facts about each GPU that `cuspec devices`
 * prints and that tuning records are keyed by. */
#include "error.h"
#include "driver.h"
#include "device.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int cuspec_device_count(int *count)
{
    const struct cuspec__driver *drv;
    CUSPEC__RETURN_IF(count == NULL, CUSPEC_ERR_INVALID, "cuspec_device_count: count is NULL");
    int rc = cuspec__driver(&drv);
    if (rc != CUSPEC_OK)
        return rc;
    if (drv->no_device) {
        *count = 0;
        return CUSPEC_OK;
    }
    return cuspec__cu_check(drv->cuDeviceGetCount(count), "cuDeviceGetCount");
}

int cuspec__device_get(int ordinal, CUdevice *dev)
{
    int count, rc = cuspec_device_count(&count);
    if (rc != CUSPEC_OK)
        return rc;
    CUSPEC__RETURN_IF(ordinal < 0 || ordinal >= count, CUSPEC_ERR_NO_DEVICE,
                      "device %d does not exist: the driver reports %d device%s", ordinal, count,
                      count == 1 ? "" : "s");
    const struct cuspec__driver *drv;
    cuspec__driver(&drv);
    return cuspec__cu_check(drv->cuDeviceGet(dev, ordinal), "cuDeviceGet");
}

int cuspec_device_get_info(int ordinal, cuspec_device_info *info)
{
    const struct cuspec__driver *drv;
    CUdevice dev;
    CUSPEC__RETURN_IF(info == NULL, CUSPEC_ERR_INVALID, "cuspec_device_get_info: info is NULL");
    int rc = cuspec__device_get(ordinal, &dev);
    if (rc != CUSPEC_OK)
        return rc;
    cuspec__driver(&drv);
    memset(info, 0, sizeof *info);
    info->ordinal = ordinal;
    info->driver_version = drv->version;

    size_t mem = 0;
    rc = cuspec__cu_check(drv->cuDeviceGetName(info->name, sizeof info->name, dev),
                          "cuDeviceGetName");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuDeviceTotalMem(&mem, dev), "cuDeviceTotalMem");
    info->total_mem = mem;

    static const struct {
        CUdevice_attribute attr;
        size_t offset;
        const char *what;
    } attrs[] = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, offsetof(cuspec_device_info, sm_major),
         "compute capability"},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, offsetof(cuspec_device_info, sm_minor),
         "compute capability"},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, offsetof(cuspec_device_info, sm_count),
         "multiprocessor count"},
        {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, offsetof(cuspec_device_info, mem_bus_width),
         "memory bus width"},
        {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, offsetof(cuspec_device_info, mem_clock_khz),
         "memory clock"},
        {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, offsetof(cuspec_device_info, l2_bytes), "L2 size"},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
         offsetof(cuspec_device_info, max_threads_per_block), "threads per block"},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
         offsetof(cuspec_device_info, max_smem_per_block), "shared memory per block"},
    };
    for (size_t i = 0; rc == CUSPEC_OK && i < sizeof attrs / sizeof *attrs; i++)
        rc = cuspec__cu_check(
            drv->cuDeviceGetAttribute((int *)((char *)info + attrs[i].offset), attrs[i].attr, dev),
            attrs[i].what);
    if (rc != CUSPEC_OK)
        return cuspec__fail_context(rc, "device %d", ordinal);

    /* Double data rate: two transfers per clock over the whole bus. */
    info->peak_bandwidth = 2.0 * info->mem_clock_khz * 1e3 * (info->mem_bus_width / 8.0);

    CUuuid uuid;
    if (drv->cuDeviceGetUuid != NULL && drv->cuDeviceGetUuid(&uuid, dev) == CUDA_SUCCESS) {
        const unsigned char *b = (const unsigned char *)uuid.bytes;
        snprintf(info->uuid, sizeof info->uuid,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                 b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                 b[14], b[15]);
    }
    return CUSPEC_OK;
}

void cuspec__device_identity(const cuspec_device_info *d, char *buf, size_t size)
{
    snprintf(buf, size, "%s|sm_%d%d|%d|%" PRIu64 "|%d", d->name, d->sm_major, d->sm_minor,
             d->sm_count, d->total_mem, d->driver_version);
}
