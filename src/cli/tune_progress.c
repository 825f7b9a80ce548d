/* cuspec tune: progress on stderr. On a terminal one line, redrawn in place,
 * with the operation, the candidates, the elapsed time and an estimate of
 * what is left; else one line per finished operation. */
#include "tune.h"

#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *duration(double s, char *buf, size_t size)
{
    if (s < 10)
        snprintf(buf, size, "%.1fs", s);
    else if (s < 60)
        snprintf(buf, size, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, size, "%dm%02ds", (int)s / 60, (int)s % 60);
    else
        snprintf(buf, size, "%dh%02dm", (int)s / 3600, (int)s % 3600 / 60);
    return buf;
}

/* Seconds left, from the time per finished operation, else (the first one)
 * from the time per candidate; -1 when nothing is known yet. */
static double eta(const struct progress *g, unsigned done, unsigned total, double spec_elapsed)
{
    size_t left = g->p->n - g->i - 1;
    double per_spec = g->i > 0 ? g->finished_s / (double)g->i : 0, cur;
    if (done > 0 && total >= done)
        cur = spec_elapsed / done * (total - done);
    else if (g->i > 0)
        cur = per_spec > spec_elapsed ? per_spec - spec_elapsed : 0;
    else
        return -1;
    if (g->budget_s > 0 && cur > g->budget_s - spec_elapsed)
        cur = g->budget_s > spec_elapsed ? g->budget_s - spec_elapsed : 0;
    return cur + (g->i > 0 ? per_spec : spec_elapsed + cur) * (double)left;
}

void progress_draw(const struct progress *g, const char *state, unsigned done, unsigned total)
{
    char what[128], line[320], t1[16], t2[16], eta_text[32] = "";
    double spec_elapsed = now_s() - g->spec_t0, e = eta(g, done, total, spec_elapsed);
    plan_label(&g->p->items[g->i], what, sizeof what);
    if (e >= 0)
        snprintf(eta_text, sizeof eta_text, "  ETA ~%s", duration(e, t2, sizeof t2));
    snprintf(line, sizeof line, "[spec %zu/%zu] %s  %s  elapsed %s%s", g->i + 1, g->p->n, what,
             state, duration(now_s() - g->t0, t1, sizeof t1), eta_text);
    struct winsize ws;
    int cols = ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col : 100;
    fprintf(stderr, "\r\033[K%.*s", cols - 1, line);
}

void progress_on_tune(const cuspec_tune_progress *pr, void *user)
{
    char state[96];
    if (pr->best_gbs > 0)
        snprintf(state, sizeof state, "candidates %u/%u  best %.0f GB/s", pr->done, pr->total,
                 pr->best_gbs);
    else
        snprintf(state, sizeof state, "candidates %u/%u  best -", pr->done, pr->total);
    progress_draw(user, state, pr->done, pr->total);
}

void progress_warning(const char *message, void *user)
{
    (void)user;
    fprintf(stderr, "\r\033[Kcuspec: warning: %s\n", message);
}

void progress_item(const struct progress *g, const struct item *it)
{
    char what[128], t[16];
    const cuspec_tune_result *r = &it->res;
    plan_label(it, what, sizeof what);
    fprintf(stderr, "[spec %zu/%zu] %s: ", g->i + 1, g->p->n, what);
    if (it->state == TUNED)
        fprintf(stderr, "%.0f GB/s, default %.0f (%.2fx); %u timed, %u reused, %u failed", r->gbs,
                r->default_gbs, tune_speedup(r), r->timed, r->reused, r->failed);
    else if (it->state == STOPPED)
        fprintf(stderr, "interrupted after %u timed, %u reused", r->timed, r->reused);
    else
        fprintf(stderr, "failed");
    fprintf(stderr, " in %s\n", duration(it->seconds, t, sizeof t));
}
