/*
 * sc_card_schema.h: internal to the card module (card*.c) and the series of a card's runs
 * (series.c): the table of card keys shared by the YAML reader, the command-line flags, the
 * checks and the YAML writer, and the rules of one run.
 */
#ifndef SC_CARD_SCHEMA_H
#define SC_CARD_SCHEMA_H

#include "sc_card.h"

typedef enum sc__card_type {
    SC__CT_STRING,   /* free text */
    SC__CT_NAME,     /* [A-Za-z0-9._-]: run_name, governor */
    SC__CT_LONG,     /* decimal integer within [min, max] */
    SC__CT_U64,      /* decimal unsigned integer within [min, max] */
    SC__CT_DOUBLE,   /* positive decimal number */
    SC__CT_CHOICE,   /* one of choices ("a|b|c") */
    SC__CT_CPULIST,  /* Linux cpulist */
    SC__CT_WORKLOAD, /* stream | ipsearch | mpi-pingpong */
    SC__CT_PREFETCH, /* on | off | unchanged */
    SC__CT_SWITCH,   /* on | off, as a bool */
    SC__CT_RUNS,     /* a number of runs within [min, max], or auto (stored as 0) */
    SC__CT_SIZE,     /* as SC__CT_U64, or auto (stored as 0): array_size */
    SC__CT_ENV,      /* mapping of variable names to values */
    SC__CT_LIST,     /* sequence of strings */
    SC__CT_METRICS,  /* sequence of mappings: name, pattern, unit, better, primary */
    SC__CT_CARRIERS, /* carriers (sc_carrier.h), one or a list (any of them): "shm,tcp" */
} sc__card_type;

/* When the resolved card (card_emit.c) writes a key: always only if the card's workload
   reads it (sc_workload_reads()), and then when its value is... */
typedef enum sc__card_emit {
    SC__EMIT_SET = 0,      /* a value: a text that is set, any number or switch */
    SC__EMIT_PRESENT,      /* given by the card (else the kernel's or the system's default) */
    SC__EMIT_NONZERO,      /* not 0 (a switch on; 0 is "none") */
    SC__EMIT_NOT_NEGATIVE, /* 0 or more (-1 is "not bound") */
    SC__EMIT_THREADS,      /* threads: not left to one_per_core, which resolves on the node */
    SC__EMIT_PAIRS_ALL,    /* pairs: all and its bounds (pairs: first is the default) */
    SC__EMIT_RUNS_AUTO,    /* the stopping rule of runs: auto */
    SC__EMIT_ACCOUNTING,   /* the interference limit, while interference_accounting is on */
} sc__card_emit;

/* What a key is to a comparison of two runs (facts_vars.c, sc_card_run_parameters): the
   schema says it once, so a new key is placed by its row, not by hand lists elsewhere. */
typedef enum sc__card_role {
    SC__ROLE_VARIABLE, /* what runs: a controlled variable named after the key */
    SC__ROLE_EXPECT,   /* the outcome the card asks for: part of the variable "expect" */
    SC__ROLE_EVIDENCE, /* its variable is read from what the run did (governor, blas, ...) */
    SC__ROLE_JUDGE,    /* how a run is judged (a gate's bound): not a variable */
    SC__ROLE_MEASURE,  /* how often or where a series measures (runs, passes): not a variable */
    SC__ROLE_LABEL,    /* names and notes (question, run_name): not a variable */
} sc__card_role;

typedef struct sc__card_key {
    sc_card_field field;
    const char *path; /* dotted YAML path: "experiment.threads" */
    const char *flag; /* command-line flag without "--", NULL when none */
    sc__card_type type;
    long long min, max;  /* integer range (inclusive) */
    const char *choices; /* "a|b|c" for SC__CT_CHOICE */
    const char *help;    /* one line for --help */
    sc__card_emit emit;  /* when the resolved card writes it */
    sc__card_role role;  /* what it is to a comparison */
} sc__card_key;

extern const sc__card_key sc__card_keys[SC_CF_COUNT];

/* Row of a dotted YAML path or of a flag name; NULL when unknown. */
const sc__card_key *sc__card_key_by_path(const char *path);
const sc__card_key *sc__card_key_by_flag(const char *flag);
/* The key whose short name (the last part of its path) is name, in whichever section; NULL
   when none is (short names are unique: test_card checks it). */
const sc__card_key *sc__card_key_by_name(const char *name);

/* Where a key of that dotted path is, as a card's reader says it: "at the top level",
   "under experiment:", "under expect:" (which is inside experiment:). */
const char *sc__card_section_name(const char *path);

/* The key whose path ends with the closest name to name (for "did you mean"); or NULL. */
const sc__card_key *sc__card_key_suggest(const char *name);

/*
 * Converts one scalar and stores it in card. where is "card.yaml:5" or "--threads" and
 * starts every message. Returns 0 or -EINVAL with a line in diag; card->invalid[] records
 * which of the two it was.
 */
int sc__card_assign(sc_card *card, const sc__card_key *key, const char *value, const char *where,
                    sc_diag *diag);

/*
 * The first look at a card's text, before the document is loaded: its size, then one pass
 * over its YAML events that refuses anchors and aliases, nesting deeper than
 * SC_CARD_MAX_DEPTH, keys and values longer than SC_CARD_MAX_SCALAR, mappings and lists of
 * more than SC_CARD_MAX_ITEMS entries and a second document (card_scan.c). Returns 0 (a
 * YAML syntax error is left to the loader, which names it), -EBADMSG with one line in
 * diag, or -ENOMEM.
 */
int sc__card_scan(const char *text, size_t len, const char *name, sc_diag *diag);

/* Longest name (run_name, governor) a card accepts. */
#define SC__CARD_NAME_MAX 100

/*
 * Makes a name the program derived (run_name with a sweep suffix such as "_cpu_list-0,2")
 * one the card accepts: characters a name may not hold become '_', and it is cut to
 * SC__CARD_NAME_MAX, so the resolved card written into a bundle reads back.
 */
void sc__card_name_sanitize(char *name);

/* Whether s is a name: [A-Za-z0-9._:-], at most SC__CARD_NAME_MAX, not starting with '.' or
   '-'. */
bool sc__card_is_name(const char *s);

/* Where a field came from, for messages: "card.yaml:5", "--threads" or "card.yaml" (buf). */
const char *sc__card_where(const sc_card *card, sc_card_field f, char *buf, size_t len);

/* A default for a word the card does not give: *slot = value unless set. 0 or -ENOMEM. */
int sc__card_default_string(char **slot, const char *value);

/* The short name of a key (last path component), for messages. */
const char *sc__card_key_name(const sc__card_key *key);

/* Whether a sweep or an ablation step may vary key: what a run is, not what the card is
   (version, question, run_name, workload), where it may run (nodes) or how often (runs). */
bool sc__card_key_sweepable(const sc__card_key *key);

/*
 * The value card holds for field as one canonical text, whatever spelling gave it (cpu_list
 * "0,1" and "0-1" are both "0-1", threads "02" is "2"): malloc'd, NULL on ENOMEM.
 */
char *sc__card_value_text(const sc_card *card, sc_card_field field);

/* Where card holds field's value, of the type its row says (long, uint64_t, double, bool,
   char *, ...), to read; NULL for the keys held elsewhere (workload, prefetch, env). */
const void *sc__card_slot_of(const sc_card *card, sc_card_field field);

/* The card's metrics freed (card_metrics.c), or copied into to: 0 or -ENOMEM. */
void sc__card_metrics_free(sc_card *card);
int sc__card_metrics_copy(sc_card *to, const sc_card *from);

/* A list key's items and their count in card (controlled_variables, command). */
typedef struct sc__card_list {
    char ***items;
    size_t *n;
} sc__card_list;

/* The list field holds; {NULL, NULL} for a key that is not a list. */
sc__card_list sc__card_list_of(sc_card *card, sc_card_field field);

/*
 * The machine-independent rules for the card of one run (no sweep left); derives run_name
 * and threads when absent. Returns 0, -EINVAL with lines in diag, or -ENOMEM.
 */
int sc__card_check_run(sc_card *card, sc_diag *diag);

#endif
