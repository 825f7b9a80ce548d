/* The status list: every code has a distinct name and a text, unknown codes
 * are handled, and the detail is per thread. */
#include "config.h"
#include "cuspec.h"
#include "tap.h"

#include <pthread.h>

static const int all[] = {
#define VALUE(name, value, text) CUSPEC_##name,
    CUSPEC_STATUS_MAP(VALUE)
#undef VALUE
};
#define N_ALL (sizeof all / sizeof *all)

TEST(every_status_is_named)
{
    for (size_t i = 0; i < N_ALL; i++) {
        const char *name = cuspec_status_name(all[i]);
        CHECK(name != NULL);
        if (name != NULL)
            CHECK(strncmp(name, "CUSPEC_", 7) == 0);
        CHECK(strcmp(cuspec_strerror(all[i]), "unknown status") != 0);
        CHECK(all[i] <= 0);
    }
    CHECK_STR_EQ(cuspec_status_name(CUSPEC_ERR_INVALID), "CUSPEC_ERR_INVALID");
    CHECK_STR_EQ(cuspec_strerror(CUSPEC_OK), "success");
}

TEST(names_and_values_are_distinct)
{
    for (size_t i = 0; i < N_ALL; i++)
        for (size_t j = i + 1; j < N_ALL; j++) {
            CHECK(all[i] != all[j]);
            CHECK(strcmp(cuspec_status_name(all[i]), cuspec_status_name(all[j])) != 0);
            CHECK(strcmp(cuspec_strerror(all[i]), cuspec_strerror(all[j])) != 0);
        }
}

TEST(unknown_status)
{
    CHECK_STR_EQ(cuspec_strerror(12345), "unknown status");
    CHECK(cuspec_status_name(12345) == NULL);
    CHECK(cuspec_status_name(-999) == NULL);
}

TEST(version_is_package_version)
{
    CHECK_STR_EQ(cuspec_version(), PACKAGE_VERSION);
}

static void *other_thread(void *arg)
{
    (void)arg;
    /* A fresh thread has no detail, whatever the main thread did. */
    return (void *)(cuspec_last_error()[0] == '\0' ? "empty" : "set");
}

TEST(detail_is_thread_local)
{
    CHECK_INT_EQ(cuspec_driver_version(NULL), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "version is NULL");
    pthread_t t;
    void *res = NULL;
    CHECK_INT_EQ(pthread_create(&t, NULL, other_thread, NULL), 0);
    pthread_join(t, &res);
    CHECK_STR_EQ((const char *)res, "empty");
    CHECK_STR_CONTAINS(cuspec_last_error(), "version is NULL");
}

TEST(null_arguments_are_refused)
{
    CHECK_INT_EQ(cuspec_device_count(NULL), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "count is NULL");
    CHECK_INT_EQ(cuspec_device_get_info(0, NULL), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec_nvrtc_get_info(NULL), CUSPEC_ERR_INVALID);
}

TAP_MAIN(TAP_ENTRY(every_status_is_named), TAP_ENTRY(names_and_values_are_distinct),
         TAP_ENTRY(unknown_status), TAP_ENTRY(version_is_package_version),
         TAP_ENTRY(detail_is_thread_local), TAP_ENTRY(null_arguments_are_refused))
