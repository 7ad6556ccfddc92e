import { ApiClient } from '../auth/api-client.entity.js';
import { OutboundCallback, OutboundCallbackAttempt } from '../delivery/outbound-callback.entity.js';
import { DomainEvent } from '../events/domain-event.entity.js';
import { IdempotencyRecord } from '../idempotency/idempotency-record.entity.js';
import { Merchant } from '../../merchants/merchant.entity.js';
import { SalesUnit } from '../../merchants/sales-unit.entity.js';
import { Payment } from '../../payments/payment.entity.js';
import { TestUser } from '../../wallet/test-user.entity.js';
import { Webhook, WebhookDelivery, WebhookDeliveryAttempt } from '../../webhooks/webhook.entity.js';

export const entities = [
  Merchant,
  SalesUnit,
  ApiClient,
  TestUser,
  Payment,
  DomainEvent,
  IdempotencyRecord,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  OutboundCallback,
  OutboundCallbackAttempt,
];
