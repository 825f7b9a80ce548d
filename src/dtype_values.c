/* Element values on the CPU: floats as doubles, integers as 64 bits. */
#include "dtype_values.h"
#include "cuspec.h"

#include <math.h>
#include <string.h>

int cuspec__dtype_is_float(int dtype)
{
    return dtype == CUSPEC_F32 || dtype == CUSPEC_F64 || dtype == CUSPEC_F16 ||
           dtype == CUSPEC_BF16;
}

int cuspec__dtype_is_unsigned(int dtype)
{
    return dtype == CUSPEC_U8 || dtype == CUSPEC_U16 || dtype == CUSPEC_U32 || dtype == CUSPEC_U64;
}

/* An IEEE half's value. */
static double half_value(uint16_t h)
{
    int e = h >> 10 & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e < 31 ? ldexp(m + 1024, e - 25) : m ? NAN : INFINITY;
    return h >> 15 ? -v : v;
}

double cuspec__value_f(const void *x, int dtype, size_t i)
{
    switch (dtype) {
    case CUSPEC_F32:
        return ((const float *)x)[i];
    case CUSPEC_F16:
        return half_value(((const uint16_t *)x)[i]);
    case CUSPEC_BF16: { /* the top half of an f32 */
        uint32_t bits = (uint32_t)((const uint16_t *)x)[i] << 16;
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    default:
        return ((const double *)x)[i];
    }
}

uint64_t cuspec__value_i(const void *x, int dtype, size_t i)
{
    switch (dtype) {
    case CUSPEC_I8:
        return (uint64_t)(int64_t)((const int8_t *)x)[i];
    case CUSPEC_U8:
        return ((const uint8_t *)x)[i];
    case CUSPEC_I16:
        return (uint64_t)(int64_t)((const int16_t *)x)[i];
    case CUSPEC_U16:
        return ((const uint16_t *)x)[i];
    case CUSPEC_I32:
        return (uint64_t)(int64_t)((const int32_t *)x)[i];
    case CUSPEC_U32:
        return ((const uint32_t *)x)[i];
    default:
        return ((const uint64_t *)x)[i];
    }
}

int cuspec__sum_dtype(int dtype)
{
    switch (dtype) {
    case CUSPEC_I8:
    case CUSPEC_I16:
    case CUSPEC_I32:
        return CUSPEC_I64;
    case CUSPEC_U8:
    case CUSPEC_U16:
    case CUSPEC_U32:
        return CUSPEC_U64;
    case CUSPEC_F16:
    case CUSPEC_BF16:
        return CUSPEC_F32;
    }
    return dtype;
}
