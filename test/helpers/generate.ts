/**
 * Generates a report through the real API and returns it once it is finished. A busy machine
 * can answer 202 (SYNC_WAIT_MS passed, the report queued or running): then its Location is
 * polled until the report completes or fails, within `deadlineMs`.
 */
import type { Report } from "../../shared/report.ts";
import type { TestService } from "./service.ts";

export async function generateReport(
  service: TestService,
  token: string,
  body: { url: string; metadata?: Record<string, string>; mode?: "passive" | "aggressive" },
  deadlineMs = 120_000,
): Promise<Report> {
  const response = await service.call<Report>("POST", "/api/generate-report", { token, body });
  if (response.status === 201) return response.body;
  if (response.status !== 202)
    throw new Error(`generate-report answered ${response.status}: ${JSON.stringify(response.body)}`);
  const until = Date.now() + deadlineMs;
  for (;;) {
    const polled = await service.call<Report>("GET", `/api/report/${response.body.id}`, { token });
    if (polled.body.status === "completed" || polled.body.status === "failed") return polled.body;
    if (Date.now() > until) throw new Error(`report ${response.body.id} still ${polled.body.status}`);
    await Bun.sleep(250);
  }
}
