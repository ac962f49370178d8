/**
 * Identity through the REST API of the real services: users (update, search, archive), role
 * assignments, teams, user app tokens (last use, maximum lifetime), the audit trail, revocation
 * reaching every service within 1 s, and the gateway's rate limits. SQLite and MySQL + Redis.
 */
import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiResponse,
  callWithOversizedBody,
  redisUrl,
  sleep,
  startGateway,
  startTestPlatform,
  type TestPlatform,
  unknownToken,
} from './support/platform.js';
import { redisCommands } from './support/redis.js';

const DAY_MS = 86_400_000;

describe.each(await testDialects())('identity and access on %s', (dialect) => {
  let platform: TestPlatform;
  let admin: ReturnType<TestPlatform['as']>;
  let n = 0;

  /** Creates a user holding `roles` globally and a token for them. */
  async function user(roles: string[] = ['developer'], lastName = `Person${++n}`) {
    const created = await admin('POST', '/core/users', {
      data: {
        type: 'user',
        attributes: {
          first_name: 'Test',
          last_name: lastName,
          email: `${lastName.toLowerCase()}-${n}@example.com`,
          roles: roles.map((role) => ({ role, workspace_id: null })),
        },
      },
    });
    expect(created.status).toBe(201);
    const token = await admin('POST', `/core/users/${created.body.data.id}/user_app_tokens`, {
      data: { type: 'user_app_token', attributes: { label: 'e2e' } },
    });
    expect(token.status).toBe(201);
    return {
      id: created.body.data.id as string,
      token: token.body.meta.token as string,
      tokenId: token.body.data.id as string,
      as: platform.as(token.body.meta.token),
    };
  }

  const codeOf = (res: ApiResponse) => res.body?.errors?.[0]?.code;

  beforeAll(async () => {
    platform = await startTestPlatform(dialect, { identity: { TOKEN_MAX_LIFETIME_DAYS: '30' } });
    admin = platform.as(platform.adminToken);
  });

  afterAll(async () => {
    await platform?.stop();
  });

  it('updates users: names by themselves, email and roles by global_user_admin; searches with query=', async () => {
    const self = await user(['developer'], 'Zebediah');
    const renamed = await self.as('PATCH', `/core/users/${self.id}`, {
      data: { type: 'user', attributes: { first_name: 'Zeb' } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.attributes).toMatchObject({ first_name: 'Zeb', name: 'Zeb Zebediah' });
    const ownEmail = await self.as('PATCH', `/core/users/${self.id}`, {
      data: { type: 'user', attributes: { email: 'mine@example.com' } },
    });
    expect(ownEmail.status).toBe(403);
    const scopedRole = await self.as('PATCH', `/core/users/${self.id}`, {
      data: { type: 'user', attributes: { roles: [{ role: 'developer', workspace_id: '1' }] } },
    });
    expect(scopedRole.status).toBe(403);

    const found = await admin('GET', '/core/users?query=zebed');
    expect(found.body.data.map((u: { id: string }) => u.id)).toEqual([self.id]);

    const ws = await admin('POST', '/core/workspaces', { data: { type: 'workspace', attributes: { name: 'Scope' } } });
    const updated = await admin('PATCH', `/core/users/${self.id}`, {
      data: {
        type: 'user',
        attributes: {
          email: `zeb-${dialect}@example.com`,
          roles: [
            { role: 'developer', workspace_id: null },
            { role: 'workspace_manager', workspace_id: ws.body.data.id },
          ],
        },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes.roles).toEqual([
      { role: 'developer', workspace_id: null },
      { role: 'workspace_manager', workspace_id: ws.body.data.id },
    ]);

    const unknownWs = await admin('PATCH', `/core/users/${self.id}`, {
      data: { type: 'user', attributes: { roles: [{ role: 'developer', workspace_id: '99999999' }] } },
    });
    expect(unknownWs.status).toBe(422);
    expect(unknownWs.body.errors[0]).toMatchObject({
      code: 'unknown_workspace',
      source: { pointer: '/data/attributes/roles/0/workspace_id' },
    });
    const notScopable = await admin('PATCH', `/core/users/${self.id}`, {
      data: { type: 'user', attributes: { roles: [{ role: 'global_user_admin', workspace_id: ws.body.data.id }] } },
    });
    expect(notScopable.status).toBe(422);
    expect(codeOf(notScopable)).toBe('role_not_scopable');
    const other = await user();
    const taken = await admin('PATCH', `/core/users/${other.id}`, {
      data: { type: 'user', attributes: { email: `zeb-${dialect}@example.com` } },
    });
    expect(taken.status).toBe(409);
    expect(codeOf(taken)).toBe('email_taken');

    const roleTypes = await self.as('GET', '/core/role_types');
    expect(
      Object.fromEntries(
        roleTypes.body.data.map((r: { id: string; attributes: { scopable: boolean } }) => [
          r.id,
          r.attributes.scopable,
        ]),
      ),
    ).toEqual({ developer: true, integrations_admin: false, workspace_manager: true, global_user_admin: false });
  });

  it('stops an archived user, a revoked token and a removed role on every service within 1 s, caches warm', async () => {
    const paths = ['/core/me', '/core/runbooks', '/core/system_parameters']; // identity, catalog, secrets
    const archived = await user(['developer', 'integrations_admin']);
    const revoked = await user();
    const demoted = await user();
    for (const u of [archived, revoked, demoted]) {
      for (const path of paths) expect((await u.as('GET', path)).status, path).toBe(200);
    }
    expect((await admin('PATCH', `/core/users/${archived.id}/archive`)).status).toBe(204);
    expect((await admin('DELETE', `/core/users/${revoked.id}/user_app_tokens/${revoked.tokenId}`)).status).toBe(204);
    expect(
      (await admin('PATCH', `/core/users/${demoted.id}`, { data: { type: 'user', attributes: { roles: [] } } })).status,
    ).toBe(200);
    await sleep(1100);
    for (const path of paths) {
      expect((await archived.as('GET', path)).status, path).toBe(401);
      expect((await revoked.as('GET', path)).status, path).toBe(401);
      expect((await demoted.as('GET', path)).status, path).toBe(403);
    }
    const again = await admin('GET', `/core/users/${archived.id}`);
    expect(again.body.data.attributes.archived).toBe(true);
  });

  it('manages tokens: self-service, last_used_at written at most once a minute, the instance maximum lifetime', async () => {
    const owner = await user();
    const other = await user();
    const created = await owner.as('POST', `/core/users/${owner.id}/user_app_tokens`, {
      data: { type: 'user_app_token', attributes: { label: 'laptop' } },
    });
    expect(created.status).toBe(201);
    const { created_at, expires_at, last_used_at } = created.body.data.attributes;
    expect(last_used_at).toBeNull();
    // TOKEN_MAX_LIFETIME_DAYS=30: a token without expiry gets the maximum.
    expect(Date.parse(expires_at) - Date.parse(created_at)).toBe(30 * DAY_MS);
    const tooLong = await owner.as('POST', `/core/users/${owner.id}/user_app_tokens`, {
      data: {
        type: 'user_app_token',
        attributes: { label: 'forever', expires_at: new Date(Date.now() + 31 * DAY_MS).toISOString() },
      },
    });
    expect(tooLong.status).toBe(422);
    expect(codeOf(tooLong)).toBe('invalid_expiry');

    const laptop = platform.as(created.body.meta.token);
    const lastUsed = async () => {
      const list = await owner.as('GET', `/core/users/${owner.id}/user_app_tokens`);
      return list.body.data.find((t: { id: string }) => t.id === created.body.data.id).attributes.last_used_at;
    };
    expect((await laptop('GET', '/core/me')).status).toBe(200);
    const first = await lastUsed();
    expect(Date.now() - Date.parse(first)).toBeLessThan(10_000);
    await sleep(1100); // past every authentication cache: the next call reaches identity's database again
    expect((await laptop('GET', '/core/runbooks')).status).toBe(200);
    expect(await lastUsed()).toBe(first);

    expect((await other.as('GET', `/core/users/${owner.id}/user_app_tokens`)).status).toBe(403);
    expect((await other.as('DELETE', `/core/users/${owner.id}/user_app_tokens/${created.body.data.id}`)).status).toBe(
      403,
    );
    expect((await owner.as('DELETE', `/core/users/${owner.id}/user_app_tokens/${created.body.data.id}`)).status).toBe(
      204,
    );
    const listed = await owner.as('GET', `/core/users/${owner.id}/user_app_tokens`);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.meta.token);
  });

  it('manages teams and their members', async () => {
    const manager = await user(['developer', 'workspace_manager']);
    const [a, b] = [await user(), await user()];
    const team = await manager.as('POST', '/core/teams', {
      data: {
        type: 'team',
        attributes: { name: `DB on-call ${dialect}` },
        relationships: { members: { data: [{ id: a.id, type: 'user' }] } },
      },
    });
    expect(team.status).toBe(201);
    expect(team.body.data.relationships.members.data).toEqual([{ id: a.id, type: 'user' }]);
    const id = team.body.data.id;
    const added = await manager.as('POST', `/core/teams/${id}/members`, { data: [{ id: b.id, type: 'user' }] });
    expect(added.status).toBe(200);
    expect(added.body.data.relationships.members.data.map((m: { id: string }) => m.id)).toEqual([a.id, b.id]);
    const ofB = await b.as('GET', `/core/teams?user_id=${b.id}`);
    expect(ofB.body.data.map((t: { id: string }) => t.id)).toEqual([id]);
    expect((await manager.as('DELETE', `/core/teams/${id}/members/${a.id}`)).status).toBe(204);
    expect((await a.as('GET', `/core/teams/${id}`)).body.data.relationships.members.data).toEqual([
      { id: b.id, type: 'user' },
    ]);
    const invalid = await manager.as('POST', `/core/teams/${id}/members`, { data: [{ id: '99999999', type: 'user' }] });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors[0]).toMatchObject({ code: 'invalid_member', meta: { invalid_ids: ['99999999'] } });
    const dupe = await manager.as('POST', '/core/teams', {
      data: { type: 'team', attributes: { name: `DB on-call ${dialect}` } },
    });
    expect(dupe.status).toBe(409);
    expect(codeOf(dupe)).toBe('name_taken');
    expect(
      (await a.as('PATCH', `/core/teams/${id}`, { data: { type: 'team', attributes: { name: 'x' } } })).status,
    ).toBe(403);
    const tooLarge = await callWithOversizedBody(platform.base, manager.token, 'PATCH', `/core/teams/${id}`, 2_000_000);
    expect(tooLarge.status).toBe(413);
    expect(codeOf(tooLarge)).toBe('payload_too_large');
    expect((await manager.as('DELETE', `/core/teams/${id}`)).status).toBe(204);
    expect((await a.as('GET', `/core/teams/${id}`)).status).toBe(404);
  });

  it('keeps an audit trail of security events, readable by global_user_admin only', async () => {
    const start = new Date().toISOString();
    const subject = await user();
    expect((await admin('DELETE', `/core/users/${subject.id}/user_app_tokens/${subject.tokenId}`)).status).toBe(204);
    for (let i = 0; i < 6; i++) expect((await subject.as('GET', '/core/me')).status).toBe(401);

    const logs = await admin('GET', `/core/action_logs?user_id=${subject.id}`);
    expect(logs.status).toBe(200);
    expect(logs.body.data.map((l: { attributes: { event: string } }) => l.attributes.event)).toEqual([
      'authentication_failures',
      'user_app_token_revoked',
      'user_app_token_created',
      'user_created',
    ]);
    const [failures, revokedLog] = logs.body.data;
    expect(failures).toMatchObject({
      type: 'action_log',
      attributes: {
        subject_type: 'user_app_token',
        subject_id: subject.tokenId,
        details: { reason: 'revoked', failures: 5 },
      },
      relationships: { user: { data: { id: subject.id, type: 'user' } }, actor: { data: null } },
    });
    expect(JSON.stringify(logs.body)).not.toContain(subject.token);
    const me = await admin('GET', '/core/me');
    expect(revokedLog.relationships.actor.data).toEqual({ id: me.body.data.id, type: 'user' });

    const created = await admin('GET', `/core/action_logs?event=user_created&created_after=${start}&page[size]=1`);
    expect(created.body.data).toHaveLength(1);
    expect(created.body.meta.page.total).toBeGreaterThanOrEqual(1);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await admin('GET', `/core/action_logs?created_after=${future}`)).body.data).toEqual([]);
    expect((await admin('GET', `/core/action_logs?created_before=${start}&user_id=${subject.id}`)).body.data).toEqual(
      [],
    );
    expect((await admin('GET', '/core/action_logs?event=nonsense')).status).toBe(422);
    const developer = await user();
    expect((await developer.as('GET', '/core/action_logs')).status).toBe(403);
  });

  it('rate limits per token and per IP with 429, Retry-After and RateLimit-* headers', async () => {
    const prefix = `rbtest:rl:${Date.now()}:${dialect}:`;
    const gateway = await startGateway(platform, {
      RATE_LIMIT_PER_MINUTE: '5',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3',
      RATE_LIMIT_REDIS_PREFIX: prefix,
    });
    try {
      const get = (token: string | null, path = '/core/me') =>
        fetch(`${gateway.base}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      const holder = await user();
      // The first call of a token counts for its IP; once the token has proven valid, for the token.
      const first = await get(holder.token);
      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit-limit')).toBe('3');
      expect(first.headers.get('ratelimit-remaining')).toBe('2');
      for (let i = 4; i >= 0; i--) {
        const res = await get(holder.token);
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBe('5');
        expect(res.headers.get('ratelimit-remaining')).toBe(String(i));
      }
      const limited = await get(holder.token);
      expect(limited.status).toBe(429);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(limited.headers.get('ratelimit-reset'))).toBe(retryAfter);
      expect(await limited.json()).toEqual({
        errors: [{ status: '429', code: 'rate_limited', title: 'Too Many Requests', detail: expect.any(String) }],
      });

      // Another token has its own bucket (after its first call, which still counts for the IP).
      const second = await user();
      expect((await get(second.token)).status).toBe(200);
      expect((await get(second.token)).headers.get('ratelimit-limit')).toBe('5');

      // The IP's bucket (3) has one call left; then anonymous calls and made-up tokens alike get 429.
      const lastAnonymous = await get(null);
      expect(lastAnonymous.status).toBe(401);
      expect(lastAnonymous.headers.get('ratelimit-remaining')).toBe('0');
      const anonymous = await get(null);
      expect(anonymous.status).toBe(429);
      expect(anonymous.headers.get('ratelimit-limit')).toBe('3');
      expect((await get(unknownToken())).status).toBe(429);
      expect((await get(null, '/healthz')).status).toBe(200);

      if (platform.redis) {
        const [keys] = (await redisCommands(redisUrl, [['KEYS', `${prefix}*`]])) as [string[]];
        expect(keys.length).toBeGreaterThanOrEqual(3);
        for (const key of keys) {
          expect(key).not.toContain(holder.token);
          expect(key).not.toContain(second.token);
        }
        await redisCommands(redisUrl, [['DEL', ...keys]]);
      }
    } finally {
      await gateway.stop();
    }
  });
});
