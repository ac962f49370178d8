/** Raw Redis helpers for end-to-end tests (shared with the services' tests). */
export * from '@runbook/cache/testing';
