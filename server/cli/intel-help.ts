/** The `intel …` part of the admin CLI's help (server/cli/intel-commands.ts runs them). */
export const INTEL_HELP = `Component intelligence (docs/intel.md)
  intel import --file <path> [--source file|wordfence|names] [--type plugin|theme]
               Imports a data file: our format (the default; the INTEL_FILE format), a
               saved Wordfence Intelligence v3 production feed, or a names index (names:
               pages of WordPress.org's query_plugins / query_themes answers, or lines
               "<slug> <Display Name>" of --type plugin, the default, or theme). The
               served data is replaced only once the whole file has been read.
  intel status [--json]                     sources, as-of dates, record counts, last errors
  intel refresh                             downloads what is configured now (as the job does),
                                            the names index from WordPress.org included`;
