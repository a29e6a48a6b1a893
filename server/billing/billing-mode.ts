/** What the operator is told at start-up about how plans change (see BillingMode in settings.ts). */

import type { Logger } from "../platform/logger.ts";
import type { PlatformSettings } from "../platform/settings.ts";
import type { BillingSettings } from "./settings.ts";

export function announceBillingMode(
  config: { billing: Pick<BillingSettings, "billingMode">; platform: Pick<PlatformSettings, "publicBaseUrl"> },
  logger: Logger,
): void {
  switch (config.billing.billingMode) {
    case "test":
      logger.warn(
        "BILLING TEST MODE: every user can switch to any plan, Enterprise included, free of charge. Use it only for trials; configure STRIPE_* (or BILLING_MODE=off) before real users sign up.",
        { public_base_url: config.platform.publicBaseUrl },
      );
      return;
    case "off":
      logger.warn(
        "billing is not configured (no STRIPE_* settings): users cannot change their plan; set plans with `npm run admin -- plan set`, or try the plans with BILLING_MODE=test (never on a server others reach)",
      );
      return;
    case "stripe":
      return;
  }
}
