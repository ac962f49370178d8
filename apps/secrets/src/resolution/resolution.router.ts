/**
 * `resolution.*` procedures: plaintext resolution for execution (internal) and save-time validation.
 * Both are mutations (POST) although they change nothing: their inputs (up to 100 templates of 64 KiB)
 * do not fit in a GET query string.
 */
import { templateContextSchema } from '@runbook/contracts';
import { z } from 'zod';
import { authedProcedure, internalProcedure, router } from '../trpc.js';
import { resolveTemplates, validateTemplates } from './resolution.service.js';
import { TEMPLATE_MAX_LENGTH } from './template.js';

const templateInput = z.object({
  template: z.string().max(TEMPLATE_MAX_LENGTH),
  context: templateContextSchema.default('text'),
});

/** `resolution.{resolve,validate}`. */
export const resolutionRouter = router({
  /**
   * Internal (service credentials only; users get 403): resolves templates to plaintext for execution.
   * Input `{templates: [{template, context = 'text'}] (1–100)}`.
   * Output `{results: string[] (same order), references: [{name, version}] (sorted)}`.
   * Errors: 422 `unknown_system_parameters` (whole call; `meta.missing` lists every name),
   * 422 `invalid_template` / `invalid_url` / `invalid_header_value` (source pointer `/templates/<i>/template`).
   */
  resolve: internalProcedure
    .input(z.object({ templates: z.array(templateInput).min(1).max(100) }))
    .output(
      z.object({
        results: z.array(z.string()),
        references: z.array(z.object({ name: z.string(), version: z.number().int() })),
      }),
    )
    .mutation(({ ctx, input }) => resolveTemplates(ctx.deps, input.templates)),

  /**
   * Save-time validation (any authenticated caller, services included).
   * Input `{templates: [{template, context = 'text', field_type?}] (0–100)}`.
   * Output `{valid, missing: string[], errors: [{index, code, detail}]}`; codes: `invalid_template`,
   * `invalid_header_value`, `temporary_credentials_not_allowed`.
   */
  validate: authedProcedure
    .input(
      z.object({ templates: z.array(templateInput.extend({ field_type: z.string().max(64).optional() })).max(100) }),
    )
    .output(
      z.object({
        valid: z.boolean(),
        missing: z.array(z.string()),
        errors: z.array(z.object({ index: z.number().int(), code: z.string(), detail: z.string() })),
      }),
    )
    .mutation(({ ctx, input }) => validateTemplates(ctx.deps, input.templates)),
});
