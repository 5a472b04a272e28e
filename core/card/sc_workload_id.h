/*
 * sc_workload_id.h: the workloads' enum, the table's index (sc_workload.h, table.c): a new
 * workload adds its value here, before SC_WORKLOAD_COUNT.
 */
#ifndef SC_WORKLOAD_ID_H
#define SC_WORKLOAD_ID_H

/* The workloads, in table order; NONE is a card that names none. */
typedef enum sc_workload {
    SC_WORKLOAD_NONE = 0,
    SC_WORKLOAD_STREAM,
    SC_WORKLOAD_IPSEARCH,
    SC_WORKLOAD_MPI_PINGPONG,
    SC_WORKLOAD_EXEC,
    SC_WORKLOAD_COUNT
} sc_workload;

#endif
