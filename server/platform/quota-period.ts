/**
 * Quota periods are calendar months in UTC (docs/plans.md): a period starts at 00:00 UTC on
 * the 1st and the quota resets at the start of the next one. The platform's, not billing's:
 * billing counts usage in it, and access reads that usage when it checks a token (access may
 * not import billing, which stands on access's API guard).
 */
export interface QuotaPeriod {
  /** `YYYY-MM-01`, the key stored in usage_periods.period_start. */
  key: string;
  start: Date;
  /** Exclusive end = the reset instant. */
  end: Date;
}

export function quotaPeriod(now: Date = new Date()): QuotaPeriod {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { key: start.toISOString().slice(0, 10), start, end };
}
