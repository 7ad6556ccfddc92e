import { Migration } from '@mikro-orm/migrations';

/**
 * The attempt log, contract step (README, Data lifecycle): a release after the expand step
 * (Migration20261205040000DataLifecycle), the old table `delivery_attempt_legacy` goes, and with it the union every
 * read of attempts took.
 *
 * Its rows still kept move into the partitioned log first, in the days they were made (each missing day created as a
 * table of its own and attached, as the prune's creator does: ATTACH takes SHARE UPDATE EXCLUSIVE on the parent, which
 * no writer waits for); the prune drops those days as they age. At the defaults the prune has emptied the old table
 * 37 days after the expand step, and then nothing moves; a deployment sooner moves what is left, at most those days.
 *
 * The release before this one is still serving during the rolling upgrade, and it reads `delivery_attempt_legacy`
 * beside the log in every read of attempts, and its prune counts and deletes there: a dropped table would fail those
 * statements. So the name stays, as a view of the log that holds no row (`where false`): the old release's union
 * reads nothing more from it (the moved rows it now reads once, in the log), and its prune's count is 0 and its
 * batched delete (a simple view is updatable, and locks nothing it has no row of) deletes nothing. The next release's
 * contract step drops the view, once no instance of the release before this one can be running.
 */
export class Migration20261205060000AttemptLogContract extends Migration {
  override name = 'Migration20261205060000AttemptLogContract';

  override up(): void {
    this.addSql(`do $$
      declare day date;
      begin
        for day in select generate_series(min((attempted_at at time zone 'utc')::date), max((attempted_at at time zone 'utc')::date),
            interval '1 day')::date from delivery_attempt_legacy loop
          if to_regclass('delivery_attempt_p' || to_char(day, 'YYYYMMDD')) is null then
            execute format('create table %I (like delivery_attempt including defaults including constraints)',
              'delivery_attempt_p' || to_char(day, 'YYYYMMDD'));
            execute format('alter table delivery_attempt attach partition %I for values from (%L) to (%L)',
              'delivery_attempt_p' || to_char(day, 'YYYYMMDD'), day::text || ' 00:00:00+00', (day + 1)::text || ' 00:00:00+00');
          end if;
        end loop;
      end $$;`);
    this.addSql(`insert into delivery_attempt (id, delivery_id, attempted_at, status_code, duration_ms, error)
      select id, delivery_id, attempted_at, status_code, duration_ms, error from delivery_attempt_legacy;`);
    this.addSql(`drop table delivery_attempt_legacy;`);
    this.addSql(`create view delivery_attempt_legacy as
      select id, delivery_id, attempted_at, status_code, duration_ms, error from delivery_attempt where false;`);
  }

  override down(): void {
    this.addSql(`drop view delivery_attempt_legacy;`);
    this.addSql(`create table delivery_attempt_legacy (like delivery_attempt including defaults including constraints);`);
  }
}
