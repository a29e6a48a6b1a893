/**
 * The suite's clients: each asks for one report and does what a careful client of a paid API
 * does — the Action's and the CLI's rules (shared/client.ts): retry 503, 409 and 429 after
 * Retry-After and a dropped connection, with the same Idempotency-Key; poll a 202's Location.
 * A client without a key cannot retry a request whose answer it lost (it might pay twice), so
 * it gives up ("lost"): the service must not charge it for a report it never learnt of.
 *
 * Each records every answer and every report id it was told of, so the suite can check that
 * what was charged is exactly what clients got.
 */

export type ClientMode = "sync-key" | "async-key" | "sync";

export interface ClientRecord {
  index: number;
  mode: ClientMode;
  /** metadata.git_ref of its requests: finds its reports in the database. */
  label: string;
  key: string | undefined;
  startedAt: number;
  endedAt: number;
  outcome: "completed" | "failed" | "lost" | "timeout" | "error";
  /** Every report id an answer named (201, 202, a poll). */
  reportIds: Set<string>;
  statuses: number[];
  /** Requests that got no HTTP answer at all (refused, reset, closed). */
  dropped: number;
  /** 503s without Retry-After or not problem+json. */
  bad503: number;
  detail?: string;
}

export interface ClientTarget {
  /** The API's URL (the same after a restart: same port). */
  api: string;
  token: string;
  site: string;
}

const POLL_MS = 300;
const MAX_RETRY_WAIT_MS = 2_000;

export async function runClient(
  index: number,
  mode: ClientMode,
  target: ClientTarget,
  boundMs: number,
): Promise<ClientRecord> {
  const label = `c${index}`;
  const record: ClientRecord = {
    index,
    mode,
    label,
    key: mode === "sync" ? undefined : `fault-key-${index}`,
    startedAt: Date.now(),
    endedAt: 0,
    outcome: "timeout",
    reportIds: new Set(),
    statuses: [],
    dropped: 0,
    bad503: 0,
  };
  const deadline = record.startedAt + boundMs;
  const headers: Record<string, string> = {
    authorization: `Bearer ${target.token}`,
    "content-type": "application/json",
  };
  if (record.key) headers["idempotency-key"] = record.key;
  if (mode === "async-key") headers.prefer = "respond-async";
  const body = JSON.stringify({ url: target.site, metadata: { environment: "faults", git_ref: label } });

  const answer = async (method: string, path: string, sent?: string) => {
    try {
      const response = await fetch(`${target.api}${path}`, {
        method,
        headers: method === "GET" ? { authorization: headers.authorization as string } : headers,
        body: sent,
        signal: AbortSignal.timeout(Math.max(1_000, deadline - Date.now())),
      });
      const text = await response.text();
      record.statuses.push(response.status);
      if (response.status === 503) {
        const problem = (response.headers.get("content-type") ?? "").startsWith("application/problem+json");
        if (!problem || !response.headers.get("retry-after")) record.bad503++;
      }
      let json: { id?: string; status?: string; code?: string } = {};
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: response.status, json, retryAfter: Number(response.headers.get("retry-after") ?? "") };
    } catch {
      record.dropped++;
      return undefined;
    }
  };
  const pause = (seconds: number) =>
    Bun.sleep(Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, MAX_RETRY_WAIT_MS) : 500);

  const finish = (outcome: ClientRecord["outcome"], detail?: string) => {
    record.outcome = outcome;
    record.endedAt = Date.now();
    if (detail) record.detail = detail;
    return record;
  };

  let polling: string | undefined;
  while (Date.now() < deadline) {
    if (polling) {
      const got = await answer("GET", `/api/report/${polling}`);
      if (got?.status === 200 && (got.json.status === "completed" || got.json.status === "failed"))
        return finish(got.json.status);
      await Bun.sleep(POLL_MS);
      continue;
    }
    const got = await answer("POST", "/api/generate-report", body);
    if (!got) {
      if (!record.key) return finish("lost");
      await pause(0);
      continue;
    }
    if (got.json.id) record.reportIds.add(got.json.id);
    if (got.status === 201) return finish(got.json.status === "completed" ? "completed" : "failed");
    if (got.status === 202 && got.json.id) {
      polling = got.json.id;
      continue;
    }
    if (got.status === 503 || got.status === 409 || got.status === 429) {
      await pause(got.retryAfter);
      continue;
    }
    if (got.status === 422) return finish("failed", got.json.code);
    return finish("error", `${got.status} ${got.json.code ?? ""}`);
  }
  return finish("timeout");
}
