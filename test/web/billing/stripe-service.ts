/** The billing tests' setup: a local stub of Stripe's API and a real service configured for it. */
import { afterAll, beforeAll } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { stripeEnvFor } from "./stripe-events.ts";
import { type StripeStub, startStripeStub } from "./stripe-stub.ts";

/**
 * Registers the file's (or describe's) beforeAll and afterAll: the stub, then the service that
 * talks to it; stopped after the tests. The fields are set once beforeAll has run.
 */
export function serviceWithStripeStub(): { service: TestService; stub: StripeStub } {
  const setup = {} as { service: TestService; stub: StripeStub };
  beforeAll(async () => {
    setup.stub = startStripeStub();
    setup.service = await startTestService({ env: stripeEnvFor(setup.stub) });
  });
  afterAll(async () => {
    await setup.service?.stop();
    await setup.stub?.stop();
  });
  return setup;
}
