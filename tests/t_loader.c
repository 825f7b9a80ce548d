/* The run-time loaders: each scenario runs in a child process (the libraries
 * are opened once per process), with the environment overrides pointing at
 * something that is not a usable driver or NVRTC. */
#include "config.h" /* first: it picks the system interfaces (nftw in tap.h) */
#include "cuspec.h"
#include "tap.h"

#include <unistd.h>

struct scenario {
    const char *var, *value;
    void (*fn)(void);
};

static void with_env(void *arg)
{
    const struct scenario *s = arg;
    setenv(s->var, s->value, 1);
    s->fn();
}

/* Runs fn in a child with `var` set to `value`. */
static void in_child(const char *var, const char *value, void (*fn)(void))
{
    struct scenario s = {var, value, fn};
    tap_in_child(with_env, &s);
}

static void expect_no_driver(const char *what)
{
    int count = -1;
    CHECK_INT_EQ(cuspec_device_count(&count), CUSPEC_ERR_NO_DRIVER);
    CHECK_INT_EQ(count, -1);
    CHECK_STR_CONTAINS(cuspec_last_error(), what);
    CHECK_STR_CONTAINS(cuspec_last_error(), "CUSPEC_LIBCUDA");
    /* Asked again, the same answer (loaded once, detail restored). */
    cuspec_device_info info;
    CHECK_INT_EQ(cuspec_device_get_info(0, &info), CUSPEC_ERR_NO_DRIVER);
    CHECK_STR_CONTAINS(cuspec_last_error(), what);
    int version;
    CHECK_INT_EQ(cuspec_driver_version(&version), CUSPEC_ERR_NO_DRIVER);
}

static void missing_driver(void)
{
    expect_no_driver("/nonexistent/libcuda.so.1");
}

static void not_a_library(void)
{
    expect_no_driver("/etc/hostname");
}

static void stub_driver(void)
{
    expect_no_driver("stub library");
}

static void missing_nvrtc(void)
{
    cuspec_nvrtc_info info;
    CHECK_INT_EQ(cuspec_nvrtc_get_info(&info), CUSPEC_ERR_NO_NVRTC);
    CHECK_STR_CONTAINS(cuspec_last_error(), "/nonexistent/libnvrtc.so");
    CHECK_STR_CONTAINS(cuspec_last_error(), "CUSPEC_LIBNVRTC");
}

static void real_nvrtc(void)
{
    cuspec_nvrtc_info info;
    CHECK_INT_EQ(cuspec_nvrtc_get_info(&info), CUSPEC_OK);
    CHECK_INT_GE(info.major, 12);
    CHECK(info.n_archs > 0);
    CHECK_STR_CONTAINS(info.path, "libnvrtc");
    int has90 = 0;
    for (int i = 0; i < info.n_archs; i++)
        has90 |= info.archs[i] == 90;
    CHECK(has90);
}

TEST(driver_missing_is_reported)
{
    in_child("CUSPEC_LIBCUDA", "/nonexistent/libcuda.so.1", missing_driver);
}

TEST(driver_not_a_library_is_reported)
{
    in_child("CUSPEC_LIBCUDA", "/etc/hostname", not_a_library);
}

TEST(stub_driver_is_no_driver)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/lib64/stubs/libcuda.so", getenv("CUDA_DIR"));
    CHECK(access(path, R_OK) == 0); /* configure found the toolkit, which ships the stub */
    in_child("CUSPEC_LIBCUDA", path, stub_driver);
}

TEST(nvrtc_missing_is_reported)
{
    in_child("CUSPEC_LIBNVRTC", "/nonexistent/libnvrtc.so", missing_nvrtc);
}

TEST(nvrtc_found_in_toolkit)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/lib64/libnvrtc.so", getenv("CUDA_DIR"));
    CHECK(access(path, R_OK) == 0); /* configure found the toolkit, which ships NVRTC */
    in_child("CUSPEC_LIBNVRTC", path, real_nvrtc);
}

TAP_MAIN(TAP_ENTRY(driver_missing_is_reported), TAP_ENTRY(driver_not_a_library_is_reported),
         TAP_ENTRY(stub_driver_is_no_driver), TAP_ENTRY(nvrtc_missing_is_reported),
         TAP_ENTRY(nvrtc_found_in_toolkit))
