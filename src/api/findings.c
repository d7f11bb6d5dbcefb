/* The simulator's checker's findings handed to the caller: as the last error's text (one
 * "FILE:LINE:COL: error: ..." line per finding, then the summary, as `run --sanitize` prints
 * them) and as data (P2cFinding: p2c_compiler_last_findings, p2c_compiler_finding), both made
 * here from the one report the launch filled, so that the two cannot say different things. */
#include <stdio.h>
#include <string.h>

#include "api/api.h"

/* The last error: one line per finding (as many as fit), then the summary. */
static void findings_text(P2cCompiler *c, const SimSanReport *rep, const char *file, const char *kernel) {
  char line[SIM_SAN_MESSAGE_SIZE + 700], summary[600];
  size_t len = 0, size = sizeof c->last_error;
  sim_san_summary(rep, kernel, summary, sizeof summary);
  c->last_error[0] = '\0';
  for (size_t i = 0; i < rep->count; i++) {
    sim_san_format(&rep->findings[i], file, kernel, line, sizeof line);
    size_t n = strlen(line);
    if (len + n + 1 + strlen(summary) + 1 >= size) break;
    memcpy(c->last_error + len, line, n);
    len += n;
    c->last_error[len++] = '\n';
  }
  snprintf(c->last_error + len, size - len, "%s", summary);
}

P2cStatus api_fail_sanitize(P2cCompiler *c, const SimSanReport *report, const char *file, const char *kernel) {
  api_fail(c, P2C_ERR_SANITIZE, "sanitize");   /* clears the earlier failure's data */
  findings_text(c, report, file, kernel);
  c->findings = *report;
  snprintf(c->findings_file, sizeof c->findings_file, "%s", file ? file : "<kernel>");
  snprintf(c->findings_kernel, sizeof c->findings_kernel, "%s", kernel ? kernel : "");
  c->has_findings = true;
  return P2C_ERR_SANITIZE;
}

bool p2c_compiler_last_findings(const P2cCompiler *c, P2cFindings *out) {
  if (!c || !out || !c->has_findings) return false;
  *out = (P2cFindings){c->findings.count, sim_san_total(&c->findings), c->findings.out_of_memory};
  return true;
}

/* threadIdx or blockIdx as the public struct holds it. */
static void dims(uint32_t out[3], uint3 v) {
  out[0] = v.x, out[1] = v.y, out[2] = v.z;
}

/* Whether the finding is about an array element (a race or an uninitialized read), not a call. */
static bool is_access(const SimSanFinding *f) {
  return f->kind == SIM_SAN_SHARED_RACE || f->kind == SIM_SAN_GLOBAL_RACE || f->kind == SIM_SAN_UNINIT;
}

bool p2c_compiler_finding(const P2cCompiler *c, size_t i, P2cFinding *out) {
  if (!c || !out || !c->has_findings || i >= c->findings.count) return false;
  const SimSanFinding *f = &c->findings.findings[i];
  memset(out, 0, sizeof *out);
  out->kind = sim_san_kind_name(f->kind);
  sim_san_message(f, c->findings_file, out->message, sizeof out->message);
  snprintf(out->file, sizeof out->file, "%s", c->findings_file);
  snprintf(out->kernel, sizeof out->kernel, "%s", c->findings_kernel);
  out->line = f->line, out->column = f->column;
  dims(out->thread, f->thread);
  dims(out->block, f->block);
  if (!is_access(f)) return true;
  out->access = sim_san_access_word(f->access);
  out->space = sim_san_space_word(f->space);
  snprintf(out->array, sizeof out->array, "%s", f->name);
  out->ndim = f->ndim < 0 ? 0 : f->ndim > 8 ? 8 : f->ndim;
  for (int k = 0; k < out->ndim; k++) out->index[k] = f->index[k];
  if (f->kind == SIM_SAN_UNINIT) return true;
  out->other_line = f->other_line, out->other_column = f->other_column;
  out->other_access = sim_san_access_word(f->other_access);
  dims(out->other_thread, f->other_thread);
  dims(out->other_block, f->other_block);
  return true;
}
