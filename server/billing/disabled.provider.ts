/**
 * No billing (no Stripe keys, and test mode not allowed here): nobody can change their own
 * plan. Without this, a service exposed without Stripe would hand out every plan for free.
 * The operator sets plans with the admin CLI (`npm run admin -- plan set …`).
 */
import type { PlanId } from "./plans.ts";
import type { BillingProvider } from "./provider.ts";

export const BILLING_NOT_CONFIGURED =
  "Billing is not configured on this service, so plans cannot be changed here; ask the operator.";

export class BillingNotConfiguredError extends Error {
  constructor() {
    super(BILLING_NOT_CONFIGURED);
    this.name = "BillingNotConfiguredError";
  }
}

export class DisabledBillingProvider implements BillingProvider {
  readonly mode = "off" as const;

  purchasable(): PlanId[] {
    return [];
  }

  async checkout(): Promise<string> {
    throw new BillingNotConfiguredError();
  }

  async portal(): Promise<string | null> {
    return null;
  }

  async cancel(): Promise<void> {
    throw new BillingNotConfiguredError();
  }
}
