/**
 * The setup of the Action's and the CLI's end-to-end tests: the real service with a business
 * account's token, and the describe's own sites on loopback — started before its tests, stopped
 * after them (sites first, then the service).
 */
import { afterAll, beforeAll } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";

export type ServiceAndSites<Sites> = { service: TestService; token: string } & Sites;

/**
 * Registers the describe's beforeAll and afterAll; the returned object's fields are set once
 * beforeAll has run (read them inside tests and helpers that tests call, not at describe time).
 */
export function serviceAndSites<Sites extends Record<string, { stop(): void }>>(
  startSites: () => Sites,
): ServiceAndSites<Sites> {
  const setup = {} as ServiceAndSites<Sites>;
  beforeAll(async () => {
    setup.service = await startTestService();
    ({ token: setup.token } = await setup.service.token(undefined, "business"));
    Object.assign(setup, startSites());
  });
  afterAll(async () => {
    for (const site of Object.values(startedSites(setup))) site.stop();
    await setup.service?.stop();
  });
  return setup;
}

function startedSites<Sites>(setup: ServiceAndSites<Sites>): Record<string, { stop(): void }> {
  const { service: _service, token: _token, ...sites } = setup;
  return sites as Record<string, { stop(): void }>;
}
