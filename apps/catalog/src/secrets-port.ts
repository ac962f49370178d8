/**
 * Catalog's view of the secrets service: save-time validation of `{{system.*}}` templates and
 * plaintext resolution for execution (an internal procedure, called with catalog's service
 * credential). Production wraps the typed secrets client; tests implement the interface with a fake.
 */
import { AppError, type ErrorObject, type TemplateContext } from '@runbook/contracts';
import type { SecretsClient } from '@runbook/secrets/client';
import { TRPCClientError } from '@trpc/client';

/** A template and where its result is used (decides escaping, see DESIGN §5). */
export interface TemplateToResolve {
  template: string;
  context: TemplateContext;
}

/** A template to validate, with the custom field type it belongs to (if any). */
export interface TemplateToValidate extends TemplateToResolve {
  field_type?: string;
}

/** What resolution returns: `results[i]` for template `i`, versions used, and the secret plaintexts to mask. */
export interface ResolvedTemplates {
  results: string[];
  references: Array<{ name: string; version: number }>;
  /** Plaintext values of the referenced secret parameters; mask them (and their encodings) before recording anything. */
  secret_values: string[];
}

/**
 * Save-time validation result: every `missing` name, and per-template `errors` (`index` into the
 * input; `unknown_system_parameters` problems carry `meta.missing` for their template).
 */
export interface TemplateCheck {
  valid: boolean;
  missing: string[];
  errors: Array<{ index: number; code: string; detail: string; meta?: Record<string, unknown> | undefined }>;
}

/** The template procedures of the secrets service that catalog uses. */
export interface TemplateService {
  /**
   * Resolves templates to plaintext, all or nothing.
   * @throws {AppError} 422 `unknown_system_parameters` (`meta.missing`), `invalid_template`, `invalid_url`,
   *   `invalid_header_value`; 503 `secrets_unavailable` when the secrets service cannot be reached.
   */
  resolve(templates: TemplateToResolve[]): Promise<ResolvedTemplates>;
  /**
   * Checks templates without reading values.
   * @throws {AppError} 503 `secrets_unavailable`.
   */
  validate(templates: TemplateToValidate[]): Promise<TemplateCheck>;
}

const unavailable = (cause?: unknown) =>
  new AppError(503, 'secrets_unavailable', 'The secrets service is unavailable; try again shortly.', {
    retryAfter: 1,
    ...(cause === undefined ? {} : { cause }),
  });

/** Turns a failed secrets call into the AppError it carried (codes survive the hop), or 503. */
function fromClientError(error: unknown): AppError {
  if (error instanceof TRPCClientError) {
    const errors = (error.shape as { errors?: ErrorObject[] } | undefined)?.errors;
    if (errors && errors.length > 0) return AppError.fromErrors(errors);
  }
  return unavailable(error);
}

/** A {@link TemplateService} over the secrets service's typed client (which presents catalog's service credential). */
export function createSecretsTemplateService(client: SecretsClient): TemplateService {
  return {
    async resolve(templates) {
      try {
        return await client.resolution.resolve.mutate({ templates });
      } catch (error) {
        throw fromClientError(error);
      }
    },
    async validate(templates) {
      if (templates.length === 0) return { valid: true, missing: [], errors: [] };
      try {
        return await client.resolution.validate.mutate({ templates });
      } catch (error) {
        throw fromClientError(error);
      }
    },
  };
}

/** A {@link TemplateService} for a catalog started without `SECRETS_URL`: every call is 503. */
export const unavailableTemplateService: TemplateService = {
  resolve: async () => {
    throw unavailable();
  },
  validate: async (templates) => {
    if (templates.length === 0) return { valid: true, missing: [], errors: [] };
    throw unavailable();
  },
};
