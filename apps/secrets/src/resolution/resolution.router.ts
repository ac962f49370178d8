/**
 * `resolution.*` procedures: plaintext resolution for execution (internal) and save-time validation.
 * Both are mutations (POST) although they change nothing: their inputs (up to 100 templates of 64 KiB)
 * do not fit in a GET query string.
 */
import { templateContextSchema, templateValidationSchema } from '@runbook/contracts';
import { z } from 'zod';
import { authedProcedure, internalProcedure, router } from '../trpc.js';
import { resolveTemplates, validateTemplates } from './resolution.service.js';
import { TEMPLATE_MAX_LENGTH } from './template.js';

/** A template, its context, and the custom field type it belongs to (`temporary_credentials` may not reference system parameters). */
export const templateInput = z.object({
  template: z.string().max(TEMPLATE_MAX_LENGTH),
  context: templateContextSchema.default('text'),
  field_type: z.string().max(64).optional(),
});

/** `resolution.{resolve,validate}`. */
export const resolutionRouter = router({
  /**
   * Internal (service credentials only; users get 403): resolves templates to plaintext for execution.
   * Input `{templates: [{template, context = 'text', field_type?}] (1–100)}`.
   * Output `{results: string[] (same order), references: [{name, version}] (sorted), secret_values: string[]}`;
   * `secret_values` holds the plaintext of every referenced secret parameter, for the caller to mask in what it records.
   * Errors: 422 `unknown_system_parameters` (whole call; `meta.missing` lists every name),
   * 422 `invalid_template` / `invalid_url` / `invalid_header_value` / `temporary_credentials_not_allowed`
   * (source pointer `/templates/<i>/template`).
   */
  resolve: internalProcedure
    .input(z.object({ templates: z.array(templateInput).min(1).max(100) }))
    .output(
      z.object({
        results: z.array(z.string()),
        references: z.array(z.object({ name: z.string(), version: z.number().int() })),
        secret_values: z.array(z.string()),
      }),
    )
    .mutation(({ ctx, input }) => resolveTemplates(ctx.deps, input.templates)),

  /**
   * Save-time validation (any authenticated caller, services included), for every service that
   * stores templates. Input `{templates: [{template, context = 'text', field_type?, pointer?}] (0–100)}`
   * — `pointer` says where the template sits in the caller's document (e.g. `/data/attributes/url`)
   * and is echoed in its problems. Output: TemplateValidation `{valid, missing, errors: [{index,
   * pointer?, code, detail, meta?}], referenced: string[][]}`; codes `invalid_template`,
   * `invalid_header_value`, `temporary_credentials_not_allowed`, `unknown_system_parameters`
   * (`meta.missing`). `templateValidationError(result)` from `@runbook/secrets/client` turns a
   * result into the 422 to answer. Never reads a value.
   */
  validate: authedProcedure
    .input(z.object({ templates: z.array(templateInput.extend({ pointer: z.string().max(200).optional() })).max(100) }))
    .output(templateValidationSchema)
    .mutation(({ ctx, input }) => validateTemplates(ctx.deps, input.templates)),
});
