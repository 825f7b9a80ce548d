/* Devices (device.c). */
#ifndef CUSPEC_DEVICE_H
#define CUSPEC_DEVICE_H

#include "driver.h"

/* The CUdevice for `ordinal`, with a clear error when it does not exist. */
int cuspec__device_get(int ordinal, CUdevice *dev);

#endif /* CUSPEC_DEVICE_H */
