import { Migration } from '@mikro-orm/migrations';

/**
 * Order management (FACTS §4): the images a sales unit uploaded (never overwritten), and each order's latest
 * category and its receipt (immutable once sent). An `ecom` order whose `orderId` is a payment's reference is that
 * payment's order.
 */
export class Migration20261123160900Orders extends Migration {
  override name = 'Migration20261123160900Orders';

  override up(): void {
    this.addSql(`
      create table order_image (
        msn varchar(6) not null references sales_unit (msn),
        image_id varchar(128) not null check (image_id ~ '^[0-9A-Za-z_.-]+$'),
        format varchar(4) not null check (format in ('png', 'jpeg')),
        width integer not null check (width > 0),
        height integer not null check (height >= 167),
        bytes integer not null check (bytes <= 2097152),
        data text not null,
        created_at timestamptz not null,
        primary key (msn, image_id)
      );`);
    this.addSql(`
      create table order_record (
        id uuid primary key,
        msn varchar(6) not null references sales_unit (msn),
        payment_type varchar(9) not null check (payment_type in ('ecom', 'recurring')),
        order_id varchar(255) not null check (order_id ~ '^[0-9A-Za-z_.-]+$'),
        category varchar(20),
        order_details_url text,
        image_id varchar(128),
        category_id uuid,
        category_updated_at timestamptz,
        receipt jsonb,
        receipt_id uuid,
        receipt_sent_at timestamptz,
        constraint order_record_unique unique (msn, payment_type, order_id),
        foreign key (msn, image_id) references order_image (msn, image_id)
      );`);
  }
}
