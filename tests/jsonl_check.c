/* A helper of tests/t_json.sh, no test itself: reads JSON Lines on stdin and
 * exits 0 when there is at least one line and each is one JSON object that
 * jansson parses (which refuses bytes that are not UTF-8). With KEY, prints
 * how many elements the array KEY of the first object holds (exit 1 when it
 * is not an array). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    char line[1 << 16];
    int n = 0;
    while (fgets(line, sizeof line, stdin) != NULL) {
        json_error_t err;
        json_t *j = json_loads(line, JSON_REJECT_DUPLICATES, &err);
        n++;
        if (j == NULL || !json_is_object(j) || strchr(line, '\n') == NULL) {
            fprintf(stderr, "line %d is not one JSON object on its line: %s\n", n,
                    j == NULL ? err.text : "another value, or too long");
            json_decref(j);
            return 1;
        }
        if (argc > 1 && n == 1) {
            json_t *a = json_object_get(j, argv[1]);
            if (!json_is_array(a)) {
                fprintf(stderr, "line 1 has no array '%s'\n", argv[1]);
                json_decref(j);
                return 1;
            }
            printf("%zu\n", json_array_size(a));
        }
        json_decref(j);
    }
    if (n == 0)
        fprintf(stderr, "no JSON at all\n");
    return n == 0;
}
