/* The element types: their names and sizes, as the public API gives them. */
#include "error.h"

#include <string.h>

static const struct {
    const char *name;
    size_t size;
} dtypes[] = {
    [CUSPEC_F32] = {"f32", 4}, [CUSPEC_F64] = {"f64", 8}, [CUSPEC_I32] = {"i32", 4},
    [CUSPEC_I64] = {"i64", 8}, [CUSPEC_U32] = {"u32", 4}, [CUSPEC_U64] = {"u64", 8},
    [CUSPEC_I8] = {"i8", 1},   [CUSPEC_U8] = {"u8", 1},   [CUSPEC_I16] = {"i16", 2},
    [CUSPEC_U16] = {"u16", 2}, [CUSPEC_F16] = {"f16", 2}, [CUSPEC_BF16] = {"bf16", 2},
};
#define N_DTYPES (int)(sizeof dtypes / sizeof *dtypes)

size_t cuspec_dtype_size(int dtype)
{
    return dtype > 0 && dtype < N_DTYPES ? dtypes[dtype].size : 0;
}

const char *cuspec_dtype_name(int dtype)
{
    return dtype > 0 && dtype < N_DTYPES ? dtypes[dtype].name : NULL;
}

int cuspec_dtype_from_name(const char *name)
{
    for (int i = 1; name != NULL && i < N_DTYPES; i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return i;
    return 0;
}
