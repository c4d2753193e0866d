// Plans, their limits and features.
import { errors } from '../../errors.js';

export const PLANS = ['free', 'standard', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

export const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'suspended', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Every endpoint is refused while the subscription is in one of these. */
export const INACTIVE_SUBSCRIPTIONS: readonly SubscriptionStatus[] = ['suspended', 'canceled'];

export function isSubscriptionActive(status: SubscriptionStatus): boolean {
  return !INACTIVE_SUBSCRIPTIONS.includes(status);
}

/**
 * The one subscription gate of every surface that acts for a venue (an API key, a console session,
 * a guest's menu or table): 403 SUBSCRIPTION_INACTIVE while the subscription is inactive.
 */
export function requireActiveSubscription(status: SubscriptionStatus): void {
  if (!isSubscriptionActive(status)) throw errors.subscriptionInactive(status);
}

export type RateTier = 'free' | 'paid';

export interface PlanLimits {
  maxProducts: number;
  maxCategories: number;
  maxIngredients: number;
  maxBanners: number;
  maxQrTables: number;
}

export interface PlanFeatures {
  hasDelivery: boolean;
  aiEnabled: boolean;
  ordersApi: boolean;
}

export interface PlanDefinition {
  rateLimitTier: RateTier;
  limits: PlanLimits;
  features: PlanFeatures;
}

const PAID: PlanDefinition = {
  rateLimitTier: 'paid',
  limits: { maxProducts: 2000, maxCategories: 200, maxIngredients: 300, maxBanners: 20, maxQrTables: 500 },
  features: { hasDelivery: true, aiEnabled: true, ordersApi: true },
};

export const PLAN_DEFINITIONS: Readonly<Record<Plan, PlanDefinition>> = {
  free: {
    rateLimitTier: 'free',
    limits: { maxProducts: 70, maxCategories: 10, maxIngredients: 300, maxBanners: 3, maxQrTables: 10 },
    features: { hasDelivery: false, aiEnabled: true, ordersApi: false },
  },
  standard: PAID,
  pro: PAID,
};
