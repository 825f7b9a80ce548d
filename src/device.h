/* Devices (device.c). Internal. */
#ifndef CUSPEC_DEVICE_H
#define CUSPEC_DEVICE_H

#include "driver.h"

/* The CUdevice for `ordinal`, with a clear error when it does not exist. */
int cuspec__device_get(int ordinal, CUdevice *dev);

/* "NAME|sm_XY|SMs|memory bytes|driver version": a record made on another
 * device, driver or memory size never matches. */
void cuspec__device_identity(const cuspec_device_info *d, char *buf, size_t size);

#endif /* CUSPEC_DEVICE_H */
