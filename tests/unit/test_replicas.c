/* Which replica sends (src/index/replicas.c), no MPI.
 *
 * A 1-D array replicated on the even ranks 0, 2, 4, 6 of 16 (grid 4, first =
 * REDIST_REPLICATED). A destination rank that is a replica takes its elements from itself.
 * Nodes of two ranks (node_of[r] = r / 2): ranks 1, 3, 5, 7 share a node with one replica
 * each and take from it; without the nodes they would take from replica (d + base) mod 4,
 * never the one on their node. Ranks 8-15 have no replica on their node: each replica serves
 * two of them (the sending shared evenly). Identical boxes behave alike; a box held once has
 * its one holder; a copy of a box layout shares its boxes and outlives the original.
 */
#include "index/index.h"

#include <stdio.h>
#include <stdlib.h>

#include "support/check.h"

static void replicated_grid(void)
{
    int64_t n[1] = {40}, b[1] = {1};
    int grid[1] = {4}, first[1] = {REDIST_REPLICATED}, ranks[4] = {0, 2, 4, 6};
    redist_layout l = NULL;
    CHECK(redist_layout_create(1, n, b, grid, first, ranks, REDIST_ROW_MAJOR, &l) == 0, "%s",
          redist_last_error_detail());
    if (l == NULL)
        return;
    CHECK(l->nreplicas == 4 && redist__has_replicas(l), "4 replicas, not %d", l->nreplicas);
    int base = redist__base_position(l, redist__layout_position(l, 4));
    for (int r = 0; r < 8; r += 2)
        CHECK(redist__source_holder(l, base, r) == r, "replica %d takes from %d", r,
              redist__source_holder(l, base, r));
    int neighbours = 0; /* without nodes: replica (d + base) mod 4, rarely the neighbour */
    for (int d = 1; d < 8; d += 2) {
        int h = redist__source_holder(l, base, d);
        CHECK(h == ranks[(d + base) % 4], "rank %d takes from %d without nodes", d, h);
        neighbours += h == d - 1;
    }
    CHECK(neighbours < 4, "the nodes must make a difference to this test");
    int *node_of = malloc(16 * sizeof *node_of);
    for (int r = 0; r < 16; r++)
        node_of[r] = r / 2;
    l->node_of = node_of;
    for (int d = 1; d < 8; d += 2)
        CHECK(redist__source_holder(l, base, d) == d - 1,
              "rank %d takes from %d, not %d on its node", d, redist__source_holder(l, base, d),
              d - 1);
    int served[8] = {0};
    for (int d = 8; d < 16; d++) {
        int h = redist__source_holder(l, base, d);
        CHECK(h >= 0 && h < 8 && h % 2 == 0, "rank %d takes from %d", d, h);
        if (h >= 0 && h < 8)
            served[h]++;
    }
    for (int r = 0; r < 8; r += 2)
        CHECK(served[r] == 2, "replica %d serves %d of ranks 8-15, not 2", r, served[r]);
    redist_layout_free(&l); /* frees node_of */
}

static void identical_boxes(void)
{
    int64_t n[2] = {6, 4};
    /* ranks 0 and 2 hold the top half, rank 1 the bottom half, rank 3 nothing */
    int64_t lo[8] = {0, 0, 3, 0, 0, 0, 0, 0}, hi[8] = {3, 4, 6, 4, 3, 4, 0, 0};
    redist_layout l = NULL;
    CHECK(redist_layout_create_boxes(2, n, 4, lo, hi, REDIST_ROW_MAJOR, &l) == 0, "%s",
          redist_last_error_detail());
    if (l == NULL)
        return;
    CHECK(redist__has_replicas(l), "boxes 0 and 2 are replicas");
    CHECK(redist__base_position(l, 2) == 0 && redist__replica_count(l, 0) == 2, "class of box 2");
    CHECK(redist__replica_count(l, 1) == 1 && redist__source_holder(l, 1, 3) == 1, "box 1 alone");
    CHECK(redist__source_holder(l, 0, 2) == 2 && redist__source_holder(l, 0, 0) == 0,
          "replicas take from themselves");
    int a = redist__source_holder(l, 0, 1), b = redist__source_holder(l, 0, 4);
    CHECK(a == 2 && b == 0, "ranks 1, 4 take from replicas %d, %d: (d + 0) mod 2", a, b);
    redist_layout copy = redist__layout_copy(l); /* shares the boxes */
    redist_layout_free(&l);
    CHECK(copy != NULL && redist__replica_count(copy, 0) == 2, "the copy outlives the original");
    redist_layout_free(&copy);
}

int main(void)
{
    replicated_grid();
    identical_boxes();
    if (failures)
        fprintf(stderr, "test_replicas: %ld failures\n", failures);
    else
        printf("test_replicas: ok\n");
    return failures != 0;
}
