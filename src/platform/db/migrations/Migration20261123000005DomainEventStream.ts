import { Migration } from '@mikro-orm/migrations';

/**
 * One outbox for every domain. `payment_event` becomes `domain_event` in place (a rename, so ids, the identity
 * sequence, cursors handed out and the foreign key of `webhook_delivery.event_id` all carry over): each row is
 * keyed by stream (type and id) and sales unit, named by its public event name, and carries its payload once.
 * Payments' rows become the `payment` stream; `payment_event` stays as a view of that stream, with the columns
 * it always had, so payment reads (and anything reading the log directly) see the same rows as before.
 * Deliveries are ordered per (registration, stream) instead of per payment.
 */
export class Migration20261123000005DomainEventStream extends Migration {
  override name = 'Migration20261123000005DomainEventStream';

  override up(): void {
    this.addSql(`drop trigger if exists payment_event_notify on payment_event;`);
    this.addSql(`drop function if exists payment_event_notify();`);
    this.addSql(`alter table payment_event rename to domain_event;`);
    this.addSql(`alter sequence if exists payment_event_id_seq rename to domain_event_id_seq;`);
    this.addSql(`alter index payment_event_pkey rename to domain_event_pkey;`);
    this.addSql(`alter index payment_event_undispatched_idx rename to domain_event_undispatched_idx;`);
    this.addSql(`alter table domain_event drop constraint if exists payment_event_name_check;`);
    this.addSql(`alter table domain_event alter column name type varchar(100);`);
    this.addSql(`alter table domain_event add column stream_type varchar(40), add column stream_id text, add column payload jsonb;`);
    // The ePayment event body, minus what has a column of its own (msn, the timestamp as occurred_at).
    this.addSql(`
      update domain_event set
        stream_type = 'payment',
        stream_id = payment_id::text,
        payload = jsonb_build_object(
          'reference', reference,
          'pspReference', psp_reference,
          'name', name,
          'amount', jsonb_build_object('currency', currency, 'value', amount),
          'idempotencyKey', idempotency_key,
          'success', success),
        name = 'epayments.payment.' || lower(name) || '.v1';`);
    this.addSql(`alter table domain_event alter column stream_type set not null, alter column stream_id set not null,
      alter column payload set not null;`);
    this.addSql(`alter table domain_event add constraint domain_event_payload_object check (jsonb_typeof(payload) = 'object');`);
    this.addSql(`alter table domain_event drop column payment_id, drop column reference, drop column psp_reference, drop column currency,
      drop column amount, drop column idempotency_key, drop column success;`);
    // A stream's events in order: the payment log, the per-stream delivery order, the undispatched-earlier check.
    this.addSql(`create index domain_event_stream_idx on domain_event (stream_type, stream_id, id);`);
    this.addSql(`
      create view payment_event as
        select id, stream_id as payment_id, msn,
          payload->>'reference' as reference,
          payload->>'pspReference' as psp_reference,
          payload->>'name' as name,
          payload->'amount'->>'currency' as currency,
          (payload->'amount'->>'value')::bigint as amount,
          payload->>'idempotencyKey' as idempotency_key,
          (payload->>'success')::boolean as success,
          occurred_at, dispatched_at
        from domain_event where stream_type = 'payment';`);
    // Every event, of any domain, announced with its id on one channel once its transaction commits.
    this.addSql(`
      create function domain_event_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('domain_event', new.id::text);
        return null;
      end;
      $$;`);
    this.addSql(`
      create trigger domain_event_notify after insert on domain_event
        for each row execute function domain_event_notify();`);

    this.addSql(`alter table webhook_delivery add column stream_type varchar(40), add column stream_id text;`);
    this.addSql(`update webhook_delivery set stream_type = 'payment', stream_id = payment_id::text;`);
    this.addSql(`alter table webhook_delivery alter column stream_type set not null, alter column stream_id set not null;`);
    this.addSql(`alter table webhook_delivery drop column payment_id;`);
    this.addSql(`create index webhook_delivery_order_idx on webhook_delivery (webhook_id, stream_type, stream_id, event_id)
      where status = 'pending';`);
  }

  override down(): void {
    this.addSql(`drop index if exists webhook_delivery_order_idx;`);
    this.addSql(`alter table webhook_delivery add column payment_id uuid;`);
    this.addSql(`update webhook_delivery set payment_id = stream_id::uuid;`);
    this.addSql(`delete from webhook_delivery where payment_id is null;`);
    this.addSql(`alter table webhook_delivery alter column payment_id set not null, drop column stream_type, drop column stream_id;`);
    this.addSql(`create index webhook_delivery_order_idx on webhook_delivery (webhook_id, payment_id, event_id) where status = 'pending';`);
    this.addSql(`drop trigger if exists domain_event_notify on domain_event;`);
    this.addSql(`drop function if exists domain_event_notify();`);
    this.addSql(`drop view if exists payment_event;`);
    // Other domains' events have no place in the payment log.
    this.addSql(`delete from webhook_delivery where event_id in (select id from domain_event where stream_type <> 'payment');`);
    this.addSql(`delete from domain_event where stream_type <> 'payment';`);
    this.addSql(`drop index if exists domain_event_stream_idx;`);
    this.addSql(`alter table domain_event drop constraint if exists domain_event_payload_object;`);
    this
      .addSql(`alter table domain_event add column payment_id uuid, add column reference varchar(50), add column psp_reference varchar(20),
      add column currency char(3), add column amount bigint, add column idempotency_key varchar(50), add column success boolean;`);
    this.addSql(`
      update domain_event set payment_id = stream_id::uuid, reference = payload->>'reference', psp_reference = payload->>'pspReference',
        currency = payload->'amount'->>'currency', amount = (payload->'amount'->>'value')::bigint,
        idempotency_key = payload->>'idempotencyKey', success = (payload->>'success')::boolean, name = payload->>'name';`);
    this.addSql(`alter table domain_event drop column stream_type, drop column stream_id, drop column payload;`);
    this.addSql(`alter table domain_event alter column payment_id set not null, alter column reference set not null,
      alter column psp_reference set not null, alter column currency set not null, alter column amount set not null,
      alter column success set not null, alter column name type varchar(10);`);
    this.addSql(`alter table domain_event add constraint payment_event_payment_id_fkey foreign key (payment_id) references payment (id)
      deferrable initially deferred;`);
    this.addSql(`create index payment_event_payment_idx on domain_event (payment_id, id);`);
    this.addSql(`alter index domain_event_undispatched_idx rename to payment_event_undispatched_idx;`);
    this.addSql(`alter index domain_event_pkey rename to payment_event_pkey;`);
    this.addSql(`alter sequence if exists domain_event_id_seq rename to payment_event_id_seq;`);
    this.addSql(`alter table domain_event rename to payment_event;`);
    this.addSql(`
      create function payment_event_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('payment_event', new.id::text);
        return null;
      end;
      $$;`);
    this.addSql(`create trigger payment_event_notify after insert on payment_event for each row execute function payment_event_notify();`);
  }
}
