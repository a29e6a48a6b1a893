/**
 * Billing behind one interface. With Stripe keys configured the provider is Stripe
 * (Checkout for upgrades, the Customer Portal for changes and cancellation, webhooks for the
 * resulting state); without them it is either a clearly labelled test mode that changes
 * plans directly (a local trial, or BILLING_MODE=test) or off (the operator sets plans).
 */
import type { AccountDetails } from "../accounts/account.service.ts";
import type { PlanId } from "./plans.ts";

export interface CheckoutUrls {
  success: string;
  cancel: string;
}

export interface BillingProvider {
  readonly mode: "stripe" | "test" | "off";
  /** Plans that can be bought through this provider. */
  purchasable(): PlanId[];
  /** Starts a change to `plan`; returns where to send the browser. */
  checkout(account: AccountDetails, plan: PlanId, urls: CheckoutUrls): Promise<string>;
  /** Where the customer manages or cancels the subscription; null when there is no such page. */
  portal(account: AccountDetails, returnUrl: string): Promise<string | null>;
  /** Cancels at the end of the paid period, where the provider supports it directly. */
  cancel(account: AccountDetails): Promise<void>;
}
