/* The report's one walk over its sections (report-walk.c) and what a
 * format gives it: report-html.c and report-md.c each fill an
 * ls_report_markup with their markup, and the walk decides what is shown,
 * in which order, from which figures. A format's hooks escape every text
 * they are given with its own escape; the words that differ between the
 * formats (Markdown's headings and table heads are whole lines in the
 * catalogue, translated as such) stay with the format. */
#pragma once

#include <glib.h>

#include "app/report/report-data.h"
#include "app/report/report-escape.h"

/* The report's sections, in the order shown. */
typedef enum {
  LS_REPORT_ANSWER,
  LS_REPORT_SIDE_BY_SIDE,
  LS_REPORT_CHARTS,
  LS_REPORT_RUNS,
  LS_REPORT_RANKS,
  LS_REPORT_MACHINES,
  LS_REPORT_DATA,
  LS_REPORT_NOTES,
} ls_report_section;

/* The tables whose columns are fixed (the runs table's are not). */
typedef enum {
  LS_REPORT_TABLE_START_GROUPS,
  LS_REPORT_TABLE_SAME_KNOBS,
  LS_REPORT_TABLE_RANKS,
  LS_REPORT_TABLE_MACHINES,
  LS_REPORT_TABLE_SCRIPTS,
} ls_report_table;

/* The lists of sentences. */
typedef enum {
  LS_REPORT_LIST_FINDINGS,
  LS_REPORT_LIST_WARNINGS,
  LS_REPORT_LIST_DIFFERENCES,
  LS_REPORT_LIST_DATASETS,
  LS_REPORT_LIST_NOTES,
  LS_REPORT_N_LISTS,
} ls_report_list;

/* What a text cell shows beside its text, or how it shows it. */
typedef enum {
  LS_REPORT_CELL_PLAIN,
  LS_REPORT_CELL_CODE,      /* a hash */
  LS_REPORT_CELL_PLATFORM,  /* aside: the machine's platform */
  LS_REPORT_CELL_CONTAINER, /* aside: the container it ran in */
  LS_REPORT_CELL_WINE,      /* the Wine mark (aside unused) */
  LS_REPORT_CELL_ARCH,      /* aside: the CPU's architecture */
} ls_report_cell_kind;

/* A sentence made by Loadscope may quote a stored name: cut, not dropped. */
#define LS_REPORT_SENTENCE_MAX 2000

typedef struct ls_report_writer ls_report_writer;

typedef struct {
  /* Text made safe for the format, cut at max_chars (report-escape.h). */
  char *(*escape) (const char *text, gsize max_chars);

  /* The markup that stands as it is around the walk's pieces ("" or NULL:
   * none): a list (only one with items) and its items, a sentence on its
   * own, the end of a verdict, of the knobs every run shares, the start of
   * the runs table's head, and a table's rows. */
  const char *list_start[LS_REPORT_N_LISTS], *list_end, *item_start, *item_end;
  const char *paragraph_start, *paragraph_end;
  const char *verdict_end, *same_knobs_end, *runs_head_start;
  const char *row_start, *row_end;

  void (*section_start) (ls_report_writer *w, ls_report_section section);
  void (*section_end) (ls_report_writer *w, ls_report_section section);

  /* The answer: none, or per machine (its heading only where there are
   * several). which: where the table shows the recommended run (Loadscope's
   * words), or NULL. suggested: the DataLoader line with the knobs the
   * findings name. */
  void (*no_verdict) (ls_report_writer *w);
  void (*verdict_machine) (ls_report_writer *w, const ls_report_verdict *v);
  void (*recommendation) (ls_report_writer *w, const char *text, const char *which);
  /* A block of Loadscope's own code: the DataLoader line. */
  void (*code) (ls_report_writer *w, const char *text);
  void (*headline) (ls_report_writer *w, const char *text);
  void (*suggested) (ls_report_writer *w, const char *text);

  /* The heading of one run's ranks. */
  void (*ranks_run) (ls_report_writer *w, const ls_ranks_table *t);
  /* A chart; FALSE with the error where it could not be drawn or written. */
  gboolean (*chart) (ls_report_writer *w, guint i, GError **error);

  /* The runs: the knobs every run shares, then the table's own head
   * (head_cell also in the fixed tables where a format has one). */
  void (*same_knob) (ls_report_writer *w, const char *label, const char *value, gboolean first);
  void (*head_cell) (ls_report_writer *w, const char *text, gboolean numeric);
  void (*head_cell_differs) (ls_report_writer *w, const char *text);
  void (*runs_head_end) (ls_report_writer *w);

  void (*table_start) (ls_report_writer *w, ls_report_table table);
  void (*table_end) (ls_report_writer *w, ls_report_table table);
  void (*run_row_start) (ls_report_writer *w, gint64 id, gboolean recommended);
  void (*rank_row_start) (ls_report_writer *w, int rank, gboolean slowest); /* rank < 0: the node */
  void (*cell) (ls_report_writer *w, const char *text, ls_report_cell_kind kind, const char *aside);
  /* first: the first of rows rows that share the cell. */
  void (*cell_spanning) (ls_report_writer *w, const char *text, guint rows, gboolean first);
  /* NAN reads "-"; sortable: the page's script may sort on it. */
  void (*cell_number) (ls_report_writer *w, double v, int decimals, gboolean sortable);
  void (*cell_status) (ls_report_writer *w, const char *status, const char *why, gboolean simulated);
  /* value: the knob as a number where it is one, else NULL. */
  void (*cell_differs) (ls_report_writer *w, const char *text, const double *value);
} ls_report_markup;

/* A format's hooks in its table: each a static function of the format's
 * file, named as its field. */
#define LS_REPORT_HOOKS \
  .section_start = section_start, \
  .section_end = section_end, \
  .no_verdict = no_verdict, \
  .verdict_machine = verdict_machine, \
  .recommendation = recommendation, \
  .code = code, \
  .headline = headline, \
  .suggested = suggested, \
  .ranks_run = ranks_run, \
  .chart = chart, \
  .same_knob = same_knob, \
  .head_cell = head_cell, \
  .head_cell_differs = head_cell_differs, \
  .runs_head_end = runs_head_end, \
  .table_start = table_start, \
  .table_end = table_end, \
  .run_row_start = run_row_start, \
  .rank_row_start = rank_row_start, \
  .cell = cell, \
  .cell_spanning = cell_spanning, \
  .cell_number = cell_number, \
  .cell_status = cell_status, \
  .cell_differs = cell_differs

struct ls_report_writer {
  GString *out;
  const ls_report_markup *format;
  const ls_report *report;
  gpointer data; /* the format's own */
};

/* Appends text escaped for the writer's format, cut at max_chars. */
void ls_report_put (ls_report_writer *w, const char *text, gsize max_chars);

/* Every section from the verdict to the notes, through w's format;
 * FALSE with the error where a chart could not be made. */
gboolean ls_report_walk (ls_report_writer *w, GError **error);
