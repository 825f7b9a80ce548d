/* cuspec_parse_size: the one reading of sizes that CUSPEC_CACHE_MAX_BYTES
 * and the CLI's options share. */
#include "config.h"
#include "cuspec.h"
#include "tap.h"

/* The value of `text`, which must parse. */
static uint64_t size_of(const char *text)
{
    uint64_t v = 12345;
    CHECK_INT_EQ(cuspec_parse_size(text, &v), CUSPEC_OK);
    return v;
}

/* `text` must be refused, leaving the value alone. */
static void refused(const char *text)
{
    uint64_t v = 12345;
    CHECK_INT_EQ(cuspec_parse_size(text, &v), CUSPEC_ERR_INVALID);
    CHECK_UINT_EQ(v, 12345);
}

TEST(suffixes_are_powers_of_1024_in_either_case)
{
    CHECK_UINT_EQ(size_of("1000"), 1000);
    CHECK_UINT_EQ(size_of("0"), 0);
    CHECK_UINT_EQ(size_of("64K"), 65536);
    CHECK_UINT_EQ(size_of("64k"), 65536);
    CHECK_UINT_EQ(size_of("16M"), 16u << 20);
    CHECK_UINT_EQ(size_of("16m"), 16u << 20);
    CHECK_UINT_EQ(size_of("2G"), 2ull << 30);
    CHECK_UINT_EQ(size_of("2g"), 2ull << 30);
}

TEST(powers_of_two_as_2_caret_k)
{
    CHECK_UINT_EQ(size_of("2^0"), 1);
    CHECK_UINT_EQ(size_of("2^16"), 65536);
    CHECK_UINT_EQ(size_of("2^63"), 1ull << 63);
    refused("2^64");
    refused("2^");
    refused("2^-1");
    refused("2^ 3");
    refused("2^3K");
    refused("3^2");
    refused("2^0x10");
}

TEST(the_largest_sizes)
{
    CHECK_UINT_EQ(size_of("18446744073709551615"), UINT64_MAX);
    CHECK_UINT_EQ(size_of("17179869183G"), (UINT64_MAX >> 30) << 30);
    refused("18446744073709551616");
    refused("17179869184G");
}

TEST(anything_else_is_refused_with_a_reason)
{
    static const char *const bad[] = {"",     "K",   "-1", "+1",   " 1",   "1 ",
                                      "0x10", "1KB", "1T", "1.5M", "1,000"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        refused(bad[i]);
    refused("12Q");
    CHECK_STR_CONTAINS(cuspec_last_error(), "'12Q' is not a size");
    uint64_t v;
    CHECK_INT_EQ(cuspec_parse_size(NULL, &v), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec_parse_size("1", NULL), CUSPEC_ERR_INVALID);
}

TAP_MAIN(TAP_ENTRY(suffixes_are_powers_of_1024_in_either_case),
         TAP_ENTRY(powers_of_two_as_2_caret_k), TAP_ENTRY(the_largest_sizes),
         TAP_ENTRY(anything_else_is_refused_with_a_reason))
