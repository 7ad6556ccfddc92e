import { formatMoney } from '../shared/format.js';
import type { ShippingData } from './queries.js';

/** Express (issue 34): where the order ships and how, as the user chose on the landing page. */
export function Shipping({ shipping }: { shipping: ShippingData }) {
  const { address } = shipping;
  return (
    <section class="card" aria-labelledby="shipping-title" data-testid="shipping">
      <h3 id="shipping-title">Shipping</h3>
      <p>
        {shipping.shippingOptionName} · {formatMoney(shipping.shippingCost)}
        <span class="muted"> · option {shipping.shippingOptionId}</span>
      </p>
      <address>
        {address.addressLine1}
        {address.addressLine2 ? (
          <>
            <br />
            {address.addressLine2}
          </>
        ) : null}
        <br />
        {address.postCode} {address.city}, {address.country}
      </address>
    </section>
  );
}
