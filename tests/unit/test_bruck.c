/* Serial test of the shift-table schedules (Bruck's log-step exchange and its hybrid,
 * src/rowsched.c): for every P up to 300 and every d, each step is a permutation of the
 * columns moving rows in range, every unit (r, j) ends at column (j + r) mod P, the step
 * count is redist__rowsched_bruck_steps, and the full schedule takes ceil(log2 P) steps. */
#include "index/rowsched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long failures;

static int check(int64_t P, int d)
{
    redist__row_schedule s;
    if (redist__rowsched_bruck(P, d, &s) != 0)
        return 1;
    int bad = s.nsteps != redist__rowsched_bruck_steps(P, d);
    int64_t *where = malloc((size_t)(P * P) * sizeof *where); /* where[r*P + j]: column */
    char *seen = malloc((size_t)P);
    for (int64_t r = 0; r < P; r++)
        for (int64_t j = 0; j < P; j++)
            where[r * P + j] = j;
    for (int64_t k = 0; k < s.nsteps && !bad; k++) {
        const redist__row_step *st = &s.steps[k];
        memset(seen, 0, (size_t)P);
        for (int64_t c = 0; c < P; c++) {
            bad |= st->to[c] < 0 || st->to[c] >= P || seen[st->to[c]];
            if (!bad)
                seen[st->to[c]] = 1;
        }
        for (int64_t q = 0; q < st->nrows && !bad; q++) {
            int64_t r = st->rows[q];
            bad |= r < 1 || r >= P;
            for (int64_t j = 0; j < P && !bad; j++)
                where[r * P + j] = st->to[where[r * P + j]];
        }
    }
    for (int64_t r = 0; r < P && !bad; r++)
        for (int64_t j = 0; j < P; j++)
            bad |= where[r * P + j] != (j + r) % P;
    free(where);
    free(seen);
    redist__rowsched_free(&s);
    return bad;
}

int main(void)
{
    for (int64_t P = 1; P <= 300; P++) {
        int L = 0;
        while (((int64_t)1 << L) < P)
            L++;
        if (redist__rowsched_bruck_steps(P, -1) != L && failures++ < 10)
            printf("P = %lld: Bruck takes %d steps, not ceil(log2 P) = %d\n", (long long)P,
                   redist__rowsched_bruck_steps(P, -1), L);
        for (int d = -1; d <= L + 1; d++)
            if (check(P, d) && failures++ < 10)
                printf("P = %lld, d = %d: the schedule is wrong\n", (long long)P, d);
    }
    if (failures) {
        printf(" Found %ld errors\n", failures);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
