/**
 * Waits until the site answers with anything below 500 (deploy previews often return
 * connection errors or 502/503 for a while after the deploy step finishes).
 */
export async function waitForSite(
  url: string,
  seconds: number,
  log: (line: string) => void,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await fetch(url, { method: "GET", redirect: "manual", signal: AbortSignal.timeout(10_000) });
      await response.body?.cancel();
      if (response.status < 500) return true;
      log(`The site answered ${response.status}; waiting…`);
    } catch (error) {
      log(`The site did not answer (${(error as Error).message}); waiting…`);
    }
    const wait = Math.min(2_000 * attempt, 10_000);
    if (Date.now() + wait > deadline) return false;
    await sleep(wait);
  }
}
