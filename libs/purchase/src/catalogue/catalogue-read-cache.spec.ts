import { COMMON_ERRORS, type ApiEnvelopeFormat } from '#common';
import type { ChangeNotifications, ChangeSubscriber } from '#database';
import { CatalogueReadCache, PURCHASE_CATALOGUE_CHANGED } from './catalogue-read-cache.js';
import type { PurchaseCatalogueService } from './purchase-catalogue.service.js';

/** The LISTEN connection as the cache sees it: the test announces changes itself. */
class FakeNotifications {
  readonly subscribers: ChangeSubscriber[] = [];
  subscribe(channel: string, subscriber: ChangeSubscriber): void {
    expect(channel).toBe(PURCHASE_CATALOGUE_CHANGED);
    this.subscribers.push(subscriber);
    subscriber.listening(true);
  }
  async sync(): Promise<boolean> {
    return true;
  }
  announce(): void {
    for (const subscriber of this.subscribers) subscriber.changed(PURCHASE_CATALOGUE_CHANGED);
  }
}

/** The purchase envelope's success shape, counting the bodies it builds. */
const format = {
  built: 0,
  catalogue: COMMON_ERRORS,
  rateLimitCode: 'SERVICE_UNAVAILABLE',
  success(data: unknown) {
    this.built++;
    return { success: true, message: 'OK', data };
  },
  error: () => ({}),
  openApi: { errorModel: Object, successMembers: {}, errorCodesSchema: () => ({}), exampleFieldErrors: {}, describeErrors: () => '' },
} satisfies ApiEnvelopeFormat & { built: number };

describe('CatalogueReadCache', () => {
  let notifications: FakeNotifications;
  let chargeMinor: number;
  let loads: number;
  let cache: CatalogueReadCache;

  beforeEach(() => {
    notifications = new FakeNotifications();
    chargeMinor = 1050;
    loads = 0;
    format.built = 0;
    const catalogue = {
      listServices: async () => {
        loads++;
        return [{ id: 1, name: 'Airtime', charge_minor: chargeMinor }];
      },
    } as unknown as PurchaseCatalogueService;
    cache = new CatalogueReadCache(catalogue, notifications as unknown as ChangeNotifications);
  });

  it('answers hits with the entry whose body was serialised on the first answer', async () => {
    const first = await cache.listServices('vendor-1');
    const body = first.successBody(format);
    const hit = await cache.listServices('vendor-1');

    expect(hit).toBe(first);
    expect(hit.successBody(format)).toBe(body);
    expect({ loads, built: format.built }).toEqual({ loads: 1, built: 1 });
  });

  it('serialises the body again, from the new data, after an invalidation', async () => {
    const before = (await cache.listServices('vendor-1')).successBody(format);
    expect(JSON.parse(before).data[0].charge_minor).toBe(1050);

    chargeMinor = 1100;
    notifications.announce();
    const after = await cache.listServices('vendor-1');

    expect(after.successBody(format)).toBe(JSON.stringify({ success: true, message: 'OK', data: [{ id: 1, name: 'Airtime', charge_minor: 1100 }] }));
    expect({ loads, built: format.built }).toEqual({ loads: 2, built: 2 });
    // And the new body is the one the next hits send.
    expect((await cache.listServices('vendor-1')).successBody(format)).toBe(after.successBody(format));
    expect(format.built).toBe(2);
  });

  it('keeps one entry per vendor', async () => {
    const one = await cache.listServices('vendor-1');
    const two = await cache.listServices('vendor-2');
    expect(two).not.toBe(one);
    expect(loads).toBe(2);
  });
});
