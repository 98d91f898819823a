/*===- CAPIRoundTrip.c - tgc_runtime.h used from C99 ----------------------===*\
|*                                                                            *|
|* Compiled as C99 (see CMakeLists.txt), so the header stays C99-clean, and  *|
|* drives the whole C API the way a C host would. Returns 0, or the number    *|
|* of the first failed check with a message in `message`.                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tgc/Runtime/tgc_runtime.h"

#include <stdio.h>
#include <string.h>

int tgc_test_c_api_round_trip(char *message, size_t size);

/* One guard set, "rank(x) == 1; s0 == 4", as a compiler with static shapes
 * would emit for f(x: f32[4]). */
static int32_t static_size_guard(const tgc_arg_desc *args, int32_t num_args) {
  if (num_args != 1 || args[0].rank != 1)
    return 0;
  if (args[0].sizes[0] != 4)
    return 1;
  return -1;
}

static int32_t any_size_guard(const tgc_arg_desc *args, int32_t num_args) {
  if (num_args != 1 || args[0].rank != 1)
    return 0;
  return -1;
}

static const tgc_guard_value s0_value[] = {{"s0", 0, 0}};
static const tgc_guard_info static_guards[] = {
    {"rank(x) == 1", "x is 1-D at f.py:1", 0, NULL},
    {"s0 == 4", "static shapes at f.py:1", 1, s0_value}};
static const tgc_guard_set_info static_info = {"f", 2, static_guards};

typedef struct host_state {
  int compiles;
  int fallbacks;
  int log_lines;
  char last_reason[256];
  char last_log[256];
  int entry_token;
  int reference_token;
} host_state;

static int32_t compile_f(void *user, const char *function,
                         const tgc_arg_desc *args, int32_t num_args,
                         const tgc_guard_failure *failures,
                         int32_t num_failures, const char *reason,
                         tgc_dispatch_entry *out_entry,
                         const char **out_error) {
  host_state *state = (host_state *)user;
  (void)function;
  (void)failures;
  (void)num_failures;
  state->compiles++;
  snprintf(state->last_reason, sizeof state->last_reason, "%s", reason);
  if (num_args != 1) {
    *out_error = "f takes one argument";
    return 1;
  }
  out_entry->guard = state->compiles == 1 ? static_size_guard : any_size_guard;
  out_entry->info = state->compiles == 1 ? &static_info : NULL;
  out_entry->entry = &state->entry_token;
  out_entry->user_data = state;
  (void)args;
  return 0;
}

static void *reference_f(void *user, const char *function,
                         const tgc_arg_desc *args, int32_t num_args,
                         const char *reason) {
  host_state *state = (host_state *)user;
  (void)function;
  (void)args;
  (void)num_args;
  (void)reason;
  state->fallbacks++;
  return &state->reference_token;
}

static void capture_log(void *user, const char *line) {
  host_state *state = (host_state *)user;
  state->log_lines++;
  snprintf(state->last_log, sizeof state->last_log, "%s", line);
}

#define CHECK(number, condition)                                               \
  do {                                                                         \
    if (!(condition)) {                                                        \
      snprintf(message, size, "check %d failed: %s", number, #condition);      \
      tgc_set_log_callback(NULL, NULL);                                        \
      tgc_dispatch_cache_destroy(cache);                                       \
      return number;                                                           \
    }                                                                          \
  } while (0)

int tgc_test_c_api_round_trip(char *message, size_t size) {
  host_state state;
  tgc_dispatch_cache *cache = NULL;
  int64_t sizes4[1] = {4}, sizes5[1] = {5}, strides[1] = {1};
  float data[5] = {0, 1, 2, 3, 4};
  tgc_arg_desc x;
  tgc_dispatch_result result;
  tgc_dispatch_stats stats;
  char reason[256];
  int64_t length;

  memset(&state, 0, sizeof state);
  memset(&x, 0, sizeof x);
  x.data = data;
  x.sizes = sizes4;
  x.strides = strides;
  x.rank = 1;
  x.dtype = TGC_DTYPE_F32;
  x.device_type = TGC_DEVICE_CPU;
  message[0] = '\0';

  CHECK(1, tgc_runtime_abi_version() == TGC_RUNTIME_ABI_VERSION);
  CHECK(2, tgc_dispatch_cache_create("f", NULL, NULL, NULL, 8,
                                     TGC_STANCE_ERROR) == NULL);
  CHECK(3, strstr(tgc_dispatch_cache_last_error(NULL), "required") != NULL);
  CHECK(4, tgc_dispatch_cache_create("f", compile_f, NULL, NULL, -1,
                                     TGC_STANCE_ERROR) == NULL);

  tgc_set_log_callback(capture_log, &state);
  tgc_set_logs("recompiles");
  cache = tgc_dispatch_cache_create("f", compile_f, reference_f, &state, 1,
                                    TGC_STANCE_ERROR);
  CHECK(5, cache != NULL);

  CHECK(6, tgc_dispatch_cache_dispatch(cache, &x, 1, &result) ==
               TGC_DISPATCH_COMPILED);
  CHECK(7, result.entry == &state.entry_token && result.entry_id == 0 &&
               result.user_data == &state);
  CHECK(8, strcmp(state.last_reason, "compiling f (first call)") == 0);
  CHECK(9, strcmp(state.last_log, "[tgc] compiling f (first call)") == 0);
  CHECK(10,
        tgc_dispatch_cache_dispatch(cache, &x, 1, &result) == TGC_DISPATCH_HIT);

  /* s0 = 5 fails "s0 == 4": the one recompile the limit allows. */
  x.sizes = sizes5;
  CHECK(11, tgc_dispatch_cache_dispatch(cache, &x, 1, &result) ==
                TGC_DISPATCH_COMPILED);
  CHECK(12, result.entry_id == 1);
  CHECK(13, strcmp(state.last_reason,
                   "recompiling f: guard 1 failed: s0 == 4 (static shapes "
                   "at f.py:1): s0 = 5") == 0);

  /* A 2-D x fails both specializations; the limit is reached. */
  x.rank = 2;
  CHECK(14, tgc_dispatch_cache_dispatch(cache, &x, 1, &result) ==
                TGC_DISPATCH_ERROR);
  CHECK(15, strstr(tgc_dispatch_cache_last_error(cache),
                   "f: recompile limit (1) reached; last: guard 0 failed") ==
                tgc_dispatch_cache_last_error(cache));
  CHECK(16, tgc_dispatch_cache_set_stance(cache, 7) == -1);
  CHECK(17, tgc_dispatch_cache_set_stance(cache, TGC_STANCE_FALLBACK) == 0);
  CHECK(18, tgc_dispatch_cache_dispatch(cache, &x, 1, &result) ==
                TGC_DISPATCH_FALLBACK);
  CHECK(19, result.entry == &state.reference_token && state.fallbacks == 1);
  CHECK(20, strstr(state.last_log, "running the reference path") != NULL);

  CHECK(21, tgc_dispatch_cache_get_stats(cache, &stats) == 0);
  CHECK(22, stats.hits == 1 && stats.misses == 4 && stats.compiles == 2 &&
                stats.recompiles == 1 && stats.fallbacks == 1 &&
                stats.errors == 1 && stats.num_entries == 2 &&
                stats.num_recompile_reasons == 1);
  CHECK(23, tgc_dispatch_cache_entry_hits(cache, 0) == 1 &&
                tgc_dispatch_cache_entry_hits(cache, 1) == 0 &&
                tgc_dispatch_cache_entry_hits(cache, 2) == -1);
  length = tgc_dispatch_cache_recompile_reason(cache, 0, reason, 16);
  CHECK(24,
        length == (int64_t)strlen(state.last_reason) && strlen(reason) == 15);
  CHECK(25, tgc_dispatch_cache_recompile_reason(cache, 1, NULL, 0) == -1);

  tgc_set_logs("");
  tgc_set_log_callback(NULL, NULL);
  tgc_dispatch_cache_destroy(cache);
  return 0;
}
