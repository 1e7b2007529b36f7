import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { PersonPreloader } from '../../platform/lifecycle/recent-persons';
import { OwnViewCache } from '../../people';
import { PersonViews } from './person-views';

/**
 * The start-up's preload of recent persons (src/platform/lifecycle/recent-persons.ts): GET /api/person
 * as its handler caches it (full view, the default), one statement per person. A person deleted
 * meanwhile is skipped.
 */
export const ownViewPreloader: PersonPreloader = {
  name: 'own views',
  async preload(scope, personIds) {
    const tenant = scope.resolve<Tenant>(TENANT);
    const cache = scope.resolve(OwnViewCache);
    const views = scope.resolve(PersonViews);
    for (const id of personIds) await cache.get(tenant, id, 'full', () => views.get(id, 'full')).catch(() => undefined);
  },
};
