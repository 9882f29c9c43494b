/* pmi.h: the PMI-1 process-management interface, as programs written for MPICH's Hydra or Slurm's
 * libpmi use it to bootstrap (the Portals 4 reference implementation's tests, Portals programs that
 * exchange their NIC addresses at start-up).
 *
 * Provided by the `bxisim` executable over its rank services (bxisim/rank.h): the job is the run's
 * ranks, a rank's clique is the ranks of its simulated node, the key/value space is one per run.
 * Programs built with bxicc/bxicxx need no library (`-lpmi` is accepted and ignored).
 *
 * What bxisim does not do: spawning (PMI_Spawn_multiple) and name publishing (PMI_Publish_name,
 * PMI_Unpublish_name, PMI_Lookup_name) return PMI_FAIL: `bxisim run -n` starts every rank.
 * Values put are visible at once to every rank (a stronger guarantee than PMI's, which needs
 * PMI_KVS_Commit and PMI_Barrier first); PMI_KVS_Get of a key nobody put fails with
 * PMI_ERR_INVALID_KEY without waiting. None of these calls takes simulated time.
 */
#ifndef BXISIM_PMI_H
#define BXISIM_PMI_H

#ifdef __cplusplus
extern "C" {
#endif

#define PMI_SUCCESS                0
#define PMI_FAIL                   -1
#define PMI_ERR_INIT               1
#define PMI_ERR_NOMEM              2
#define PMI_ERR_INVALID_ARG        3
#define PMI_ERR_INVALID_KEY        4
#define PMI_ERR_INVALID_KEY_LENGTH 5
#define PMI_ERR_INVALID_VAL        6
#define PMI_ERR_INVALID_VAL_LENGTH 7
#define PMI_ERR_INVALID_LENGTH     8
#define PMI_ERR_INVALID_NUM_ARGS   9
#define PMI_ERR_INVALID_ARGS       10
#define PMI_ERR_INVALID_NUM_PARSED 11
#define PMI_ERR_INVALID_KEYVALP    12
#define PMI_ERR_INVALID_SIZE       13

typedef int PMI_BOOL;
#define PMI_TRUE  1
#define PMI_FALSE 0

typedef struct PMI_keyval_t {
  const char* key;
  char* val;
} PMI_keyval_t;

/* Start and end. `*spawned` is PMI_FALSE: no rank is spawned by another. */
int PMI_Init(int* spawned);
int PMI_Initialized(PMI_BOOL* initialized);
int PMI_Finalize(void);
/* Ends the whole job with `exit_code` (bxisim's exit code), after printing `error_msg`. Does not return. */
int PMI_Abort(int exit_code, const char error_msg[]);

/* The job: ranks 0..size-1 of `bxisim run -n size`; one application, number 0. */
int PMI_Get_size(int* size);
int PMI_Get_rank(int* rank);
int PMI_Get_universe_size(int* size);
int PMI_Get_appnum(int* appnum);
/* The clique: the ranks of the calling rank's simulated node, in rank order. */
int PMI_Get_clique_size(int* size);
int PMI_Get_clique_ranks(int ranks[], int length);

/* Returns when every rank of the job has called it. */
int PMI_Barrier(void);

/* The key/value space of the job. */
int PMI_KVS_Get_my_name(char kvsname[], int length);
int PMI_KVS_Get_name_length_max(int* length);
int PMI_KVS_Get_key_length_max(int* length);
int PMI_KVS_Get_value_length_max(int* length);
int PMI_KVS_Put(const char kvsname[], const char key[], const char value[]);
int PMI_KVS_Commit(const char kvsname[]);
int PMI_KVS_Get(const char kvsname[], const char key[], char value[], int length);

/* Not supported (PMI_FAIL): bxisim starts every rank with `bxisim run -n`. */
int PMI_Publish_name(const char service_name[], const char port[]);
int PMI_Unpublish_name(const char service_name[]);
int PMI_Lookup_name(const char service_name[], char port[]);
int PMI_Spawn_multiple(int count, const char* cmds[], const char** argvs[], const int maxprocs[],
                       const int info_keyval_sizesp[], const PMI_keyval_t* info_keyval_vectors[],
                       int preput_keyval_size, const PMI_keyval_t preput_keyval_vector[], int errors[]);

#ifdef __cplusplus
}
#endif

#endif /* BXISIM_PMI_H */
