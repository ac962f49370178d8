import { AppError } from '@runbook/contracts';
import type { IdentityClient } from '@runbook/identity/client';
import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { createIdentityDirectory } from './directory-port.js';

/** A TRPCClientError as the service link builds it from identity's error answer. */
const answered = (status: number, code: string) =>
  new TRPCClientError(code, {
    result: {
      error: {
        message: code,
        code: -32000,
        data: { httpStatus: status },
        errors: [{ status: String(status), code, title: code, detail: code }],
      },
    },
  } as never);

const directory = (memberships: () => Promise<{ team_ids: string[] }>) =>
  createIdentityDirectory({ teams: { memberships: { query: memberships } } } as unknown as IdentityClient);

const failureOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a failure');
};

describe('identity directory: team memberships', () => {
  it("answers identity's subset", async () => {
    expect(await directory(async () => ({ team_ids: ['4'] })).teamsOfUser('1', ['3', '4'])).toEqual(['4']);
  });

  it('is 503 identity_unavailable when identity cannot be reached or fails', async () => {
    for (const cause of [new TRPCClientError('fetch failed'), answered(500, 'internal_error')]) {
      const failure = await failureOf(directory(() => Promise.reject(cause)).teamsOfUser('1', ['3']));
      expect(failure).toBeInstanceOf(AppError);
      expect(failure).toMatchObject({ status: 503, code: 'identity_unavailable', retryAfter: 1 });
    }
  });

  it("is a 500, not identity's 401, when identity refuses catalog's credential", async () => {
    const failure = await failureOf(
      directory(() => Promise.reject(answered(401, 'unauthorized'))).teamsOfUser('1', ['3']),
    );
    expect(failure).toMatchObject({ status: 500, code: 'internal_error' });
    expect(failure.message).not.toMatch(/token/);
  });
});
