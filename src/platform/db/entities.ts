import { ApiClient } from '../auth/api-client.entity.js';
import { IdempotencyRecord } from '../idempotency/idempotency-record.entity.js';
import { Merchant } from '../../merchants/merchant.entity.js';
import { Partner, PartnerSalesUnit } from '../../merchants/partner.entity.js';
import { Psp, PspMerchant } from '../../merchants/psp.entity.js';
import { SalesUnit } from '../../merchants/sales-unit.entity.js';
import { PaymentEvent } from '../../payments/payment-event.entity.js';
import { Payment } from '../../payments/payment.entity.js';
import { TestUser } from '../../wallet/test-user.entity.js';
import { Webhook, WebhookDelivery, WebhookDeliveryAttempt } from '../../webhooks/webhook.entity.js';

export const entities = [
  Merchant,
  SalesUnit,
  ApiClient,
  Partner,
  PartnerSalesUnit,
  Psp,
  PspMerchant,
  TestUser,
  Payment,
  PaymentEvent,
  IdempotencyRecord,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryAttempt,
];
