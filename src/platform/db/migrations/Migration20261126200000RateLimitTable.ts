import { Migration } from '@mikro-orm/migrations';

/**
 * The shared rate-limit counters (`PAYGRAPH_RATE_LIMIT_STORE=postgres`, RequestLimiter): the table
 * rate-limiter-flexible's RateLimiterPostgres would create itself, in exactly its shape. Each limiter used to create it
 * at start, five at once per instance; concurrent `create table if not exists` collide on PostgreSQL (`type
 * "rate_limit" already exists`), so an instance could fail to start beside another. Databases where a limiter already
 * made the table keep it.
 */
export class Migration20261126200000RateLimitTable extends Migration {
  override name = 'Migration20261126200000RateLimitTable';

  override up(): void {
    this.addSql(`
      create table if not exists rate_limit (
        key varchar(255) primary key,
        points integer not null default 0,
        expire bigint
      );`);
  }

  override down(): void {
    this.addSql(`drop table if exists rate_limit;`);
  }
}
