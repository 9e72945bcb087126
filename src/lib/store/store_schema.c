/*
 * The store's schema, as an ordered list of migrations. Policy (docs/store.md):
 * a released migration is never edited; every change is a new migration with
 * the next version number, applied in order inside one transaction by
 * store_open(). The unit tests keep their own copy of version 1 to catch edits.
 */
#include "store/store_priv.h"

static const char migration_1[] =
    "CREATE TABLE experiments ("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  file_text TEXT,"
    "  spec_json TEXT,"
    "  seed INTEGER NOT NULL DEFAULT 0,"
    "  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
    "  status TEXT NOT NULL DEFAULT 'planned'"
    "    CHECK (status IN ('planned', 'running', 'done', 'failed'))"
    ");"
    "CREATE TABLE plan ("
    "  experiment_id INTEGER NOT NULL REFERENCES experiments(id),"
    "  seq INTEGER NOT NULL,"
    "  variant TEXT NOT NULL,"
    "  cell TEXT,"
    "  warmup INTEGER NOT NULL DEFAULT 0 CHECK (warmup IN (0, 1)),"
    "  round INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (experiment_id, seq)"
    ");"
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  experiment_id INTEGER REFERENCES experiments(id),"
    "  seq INTEGER,"
    "  variant TEXT,"
    "  cell TEXT,"
    "  status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'interrupted')),"
    "  attempt INTEGER NOT NULL DEFAULT 1,"
    "  started TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
    "  finished TEXT,"
    "  exit_code INTEGER,"
    "  error TEXT,"
    "  params_json TEXT,"
    "  result_json TEXT,"
    "  env_json TEXT,"
    "  receiver_bps REAL,"
    "  sender_bps REAL,"
    "  local_us_per_kib REAL,"
    "  remote_us_per_kib REAL,"
    "  cpu_local_pct REAL,"
    "  cpu_remote_pct REAL,"
    "  transactions_per_second REAL,"
    "  latency_p50_us REAL,"
    "  latency_p99_us REAL,"
    "  lost_percent REAL"
    ");"
    "CREATE TABLE intervals ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  idx INTEGER NOT NULL,"
    "  start REAL,"
    "  \"end\" REAL,"
    "  bits_per_second REAL,"
    "  packets INTEGER,"
    "  PRIMARY KEY (run_id, idx)"
    ");";

/*
 * Version 2: the command line of single runs; an index for the per-experiment
 * queries resume makes after every run; and triggers that make finished runs
 * immutable, so "nothing is ever overwritten" holds even against a buggy
 * caller or a hand-written UPDATE.
 */
static const char migration_2[] =
    "ALTER TABLE runs ADD COLUMN argv_text TEXT;"
    "CREATE INDEX runs_by_experiment_seq ON runs(experiment_id, seq, status);"
    "CREATE TRIGGER runs_final_is_final BEFORE UPDATE ON runs"
    "  WHEN OLD.status <> 'running'"
    "  BEGIN SELECT RAISE(ABORT, 'a finished run is never changed'); END;"
    "CREATE TRIGGER runs_never_deleted BEFORE DELETE ON runs"
    "  BEGIN SELECT RAISE(ABORT, 'runs are never deleted'); END;"
    "CREATE TRIGGER intervals_never_changed BEFORE UPDATE ON intervals"
    "  BEGIN SELECT RAISE(ABORT, 'intervals are never changed'); END;";

/*
 * Version 3: the identity of the device under test a run was measured on
 * (docs/campaign.md, "A device under test"): read over ssh before the run
 * and checked against the variant's expect:, so a report can show that no
 * run measured the wrong kernel.
 */
static const char migration_3[] = "ALTER TABLE runs ADD COLUMN dut_identity TEXT;";

/*
 * Version 4: the runners of campaigns (store_runner.h). The status column
 * alone said "running" after a kill -9; a runner row with its pid, host,
 * boot and heartbeat, read together with the store's lock, tells a live
 * campaign from one whose runner is gone, and since when.
 */
static const char migration_4[] =
    "CREATE TABLE runners ("
    "  id INTEGER PRIMARY KEY,"
    "  experiment_id INTEGER NOT NULL REFERENCES experiments(id),"
    "  pid INTEGER NOT NULL,"
    "  host TEXT NOT NULL,"
    "  boot_id TEXT,"
    "  started TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
    "  heartbeat TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
    "  ended TEXT,"
    "  end_reason TEXT"
    ");"
    "CREATE INDEX runners_by_experiment ON runners(experiment_id, id);";

/*
 * Version 5: the process CPU cost of each end (metric/metric.h,
 * local_process_demand and remote_process_demand), so that a report can
 * decide CPU cost on it when other processes pollute the system-wide figure.
 * Runs stored before have NULL: their documents did not carry the figure.
 */
static const char migration_5[] = "ALTER TABLE runs ADD COLUMN local_process_us_per_kib REAL;"
                                  "ALTER TABLE runs ADD COLUMN remote_process_us_per_kib REAL;";

/*
 * Version 6: the name of the device under test a run was measured on, for
 * experiments with several (duts:, docs/experiment.md): the report's columns
 * and `runs list` tell the machines apart by it. NULL for runs without a
 * named DUT (no DUT, or a single dut: section).
 */
static const char migration_6[] = "ALTER TABLE runs ADD COLUMN dut TEXT;";

const struct store_migration store_migrations[] = {
    {1, "initial schema", migration_1},
    {2, "argv_text, experiment index, immutable runs", migration_2},
    {3, "runs.dut_identity", migration_3},
    {4, "runners (pid, host, heartbeat, end)", migration_4},
    {5, "runs.local/remote_process_us_per_kib", migration_5},
    {6, "runs.dut", migration_6},
};
const size_t store_n_migrations = sizeof(store_migrations) / sizeof(store_migrations[0]);
