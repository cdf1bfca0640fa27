import { Migration } from '@mikro-orm/migrations';

/**
 * Sign-in for people and apps: devices with their OAuth tokens, a second factor, and the mobile
 * single-sign-on flow (started flows, one-time codes, linked identities). Every secret a client
 * holds is stored as a SHA-256 digest; the TOTP secret, which the server must read, is sealed.
 */
export class Migration20261126000000_sign_in extends Migration {
  override async up(): Promise<void> {
    // A user created through single sign-on has no password.
    this.addSql(`alter table users alter column password_hash drop not null`);
    // Sealed TOTP secret (AES-256-GCM) and the last time step a code was accepted for (replay guard).
    this.addSql(`alter table users add column otp_secret text, add column otp_last_step bigint`);
    this.addSql(`
      create table devices (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        device_id text not null,
        device_name text not null,
        device_type text not null check (device_type in ('ios', 'android', 'web')),
        os_version text,
        app_version text,
        last_seen_at timestamptz not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    // One token family per installation and user.
    this.addSql(`create unique index devices_user_device_key on devices (user_id, device_id)`);
    this.addSql(`
      create table oauth_tokens (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        device_id uuid not null references devices (id) on delete cascade,
        access_digest text not null unique,
        refresh_digest text not null unique,
        scope text not null check (scope in ('read', 'read_write')),
        expires_at timestamptz not null,
        refresh_expires_at timestamptz not null,
        rotated_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz not null
      )`);
    this.addSql(`create index oauth_tokens_device_id_idx on oauth_tokens (device_id) where revoked_at is null`);
    this.addSql(`create index oauth_tokens_user_id_idx on oauth_tokens (user_id) where revoked_at is null`);
    this.addSql(`
      create table sso_identities (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        provider text not null,
        uid text not null,
        issuer text not null,
        email text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index sso_identities_provider_uid_key on sso_identities (provider, uid)`);
    this.addSql(`create index sso_identities_user_id_idx on sso_identities (user_id)`);
    // Sign-ins sent to a provider and not back yet, by the digest of their state.
    this.addSql(`
      create table sso_flows (
        state_digest text primary key,
        binding_digest text not null,
        provider text not null,
        code_verifier text not null,
        nonce text not null,
        device jsonb not null,
        expires_at timestamptz not null
      )`);
    // One-time codes handed to the app: `exchange` (a linked sign-in) or `linking` (a pending one).
    this.addSql(`
      create table sso_codes (
        digest text primary key,
        kind text not null check (kind in ('exchange', 'linking')),
        user_id uuid references users (id) on delete cascade,
        payload jsonb not null,
        expires_at timestamptz not null,
        check ((kind = 'exchange') = (user_id is not null))
      )`);
    // Deactivating a user revokes their tokens, however the flag is changed (admin CLI or SQL).
    this.addSql(`
      create function revoke_tokens_of_deactivated_user() returns trigger language plpgsql as $$
      begin
        update oauth_tokens set revoked_at = now() where user_id = new.id and revoked_at is null;
        return null;
      end $$`);
    this.addSql(`
      create trigger users_deactivated_revoke_tokens after update of active on users
      for each row when (old.active and not new.active) execute function revoke_tokens_of_deactivated_user()`);
    this.addSql(`create index sso_flows_expires_at_idx on sso_flows (expires_at)`);
    this.addSql(`create index sso_codes_expires_at_idx on sso_codes (expires_at)`);
  }
}
