/*
 * Initializer of the /docs page (served by the gateway; no inline script, so the page's CSP can allow
 * scripts from this origin only). Loads /openapi.json, makes the Try base URL an editable server
 * variable defaulting to this instance, renders Swagger UI and a sidebar of operations grouped by
 * resource (OpenAPI tag).
 */
(() => {
  // The page lives at <base>/docs/: <base> is this instance as the browser reaches it (a reverse
  // proxy's path prefix included).
  const instanceBase = new URL('..', window.location.href).href.replace(/\/$/, '');
  const specUrl = `${instanceBase}/openapi.json`;
  const methods = ['get', 'post', 'put', 'patch', 'delete'];

  const showError = (message) => {
    const box = document.getElementById('rb-error');
    box.textContent = message;
    box.hidden = false;
  };

  const humanize = (tag) => {
    const words = tag.replace(/[_-]+/g, ' ').trim();
    return words.charAt(0).toUpperCase() + words.slice(1);
  };

  const withEditableServer = (spec) => {
    const documented = (spec.servers || []).filter((s) => s.url.replace(/\/$/, '') !== instanceBase);
    spec.servers = [
      {
        url: '{base_url}',
        description: 'This instance (edit the base URL to call another one)',
        variables: { base_url: { default: instanceBase, description: 'Base URL of the Runbook Platform gateway' } },
      },
      ...documented,
    ];
    return spec;
  };

  // Swagger UI pre-fills parameter inputs from their examples: an optional filter would silently
  // narrow every Try (`workspace_id=42`) and a path id would call a resource that likely does not
  // exist. Identifiers are for the user to fill in, so parameter examples are dropped here (the
  // published document keeps them).
  const withoutParameterExamples = (spec) => {
    for (const item of Object.values(spec.paths || {})) {
      for (const holder of [item, ...methods.map((method) => item[method]).filter(Boolean)]) {
        for (const parameter of holder.parameters || []) {
          delete parameter.example;
          delete parameter.examples;
          if (parameter.schema) {
            delete parameter.schema.example;
            delete parameter.schema.examples;
          }
        }
      }
    }
    return spec;
  };

  const operationsByTag = (spec) => {
    const groups = new Map();
    for (const [path, item] of Object.entries(spec.paths || {})) {
      for (const method of methods) {
        const op = item[method];
        if (!op) continue;
        const tag = op.tags?.[0] || 'default';
        if (!groups.has(tag)) groups.set(tag, []);
        groups.get(tag).push({ method, path, tag, operationId: op.operationId, summary: op.summary || path });
      }
    }
    return groups;
  };

  const scrollToOperation = (id, attempts = 40) => {
    const element = document.getElementById(id);
    if (element) {
      element.scrollIntoView({ block: 'start' });
      return;
    }
    if (attempts > 0) window.requestAnimationFrame(() => scrollToOperation(id, attempts - 1));
  };

  const renderSidebar = (ui, spec) => {
    const nav = document.getElementById('rb-sidebar');
    nav.replaceChildren();
    for (const [tag, operations] of operationsByTag(spec)) {
      const section = document.createElement('section');
      section.className = 'rb-sidebar-group';
      const heading = document.createElement('h2');
      heading.textContent = humanize(tag);
      section.append(heading);
      const list = document.createElement('ul');
      for (const op of operations) {
        const link = document.createElement('a');
        link.href = `#/${encodeURIComponent(tag)}/${encodeURIComponent(op.operationId)}`;
        link.className = 'rb-sidebar-op';
        link.dataset.operationId = op.operationId;
        const badge = document.createElement('span');
        badge.className = `rb-method rb-method-${op.method}`;
        badge.textContent = op.method === 'delete' ? 'DEL' : op.method.toUpperCase();
        const label = document.createElement('span');
        label.textContent = op.summary;
        link.append(badge, label);
        link.addEventListener('click', (event) => {
          event.preventDefault();
          for (const active of nav.querySelectorAll('.rb-active')) active.classList.remove('rb-active');
          link.classList.add('rb-active');
          ui.layoutActions.show(['operations-tag', tag], true);
          ui.layoutActions.show(['operations', tag, op.operationId], true);
          scrollToOperation(`operations-${tag}-${op.operationId}`);
        });
        const entry = document.createElement('li');
        entry.append(link);
        list.append(entry);
      }
      section.append(list);
      nav.append(section);
    }
  };

  // The sidebar sticks below the sticky live-data warning, whose height depends on the width.
  const warning = document.getElementById('rb-live-data-warning');
  const trackWarningHeight = () =>
    document.documentElement.style.setProperty('--rb-warning-height', `${warning.offsetHeight}px`);
  trackWarningHeight();
  if (window.ResizeObserver) new ResizeObserver(trackWarningHeight).observe(warning);

  fetch(specUrl, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
    .then((response) => {
      if (!response.ok) throw new Error(`${specUrl} answered ${response.status}`);
      return response.json();
    })
    .then((spec) => {
      const ui = window.SwaggerUIBundle({
        spec: withoutParameterExamples(withEditableServer(spec)),
        dom_id: '#swagger-ui',
        layout: 'BaseLayout',
        deepLinking: true,
        docExpansion: 'list',
        defaultModelsExpandDepth: 0,
        displayRequestDuration: true,
        filter: true,
        persistAuthorization: false,
        showMutatedRequest: true,
        requestSnippetsEnabled: true,
        tryItOutEnabled: false,
        validatorUrl: null,
        queryConfigEnabled: false,
      });
      window.ui = ui;
      renderSidebar(ui, spec);
    })
    .catch((error) => {
      document.getElementById('rb-sidebar').replaceChildren();
      showError(`The API description could not be loaded: ${error.message}`);
    });
})();
