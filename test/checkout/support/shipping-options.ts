/**
 * What a merchant's dynamic shipping callback answers in the tests: a valid list in the public definition's shape
 * (a PostNord pickup point and a default bike courier).
 */
export const DYNAMIC_SHIPPING_OPTIONS = [
  {
    brand: 'POSTNORD',
    type: 'PICKUP_POINT',
    amount: { value: 4900, currency: 'NOK' },
    id: 'pn-pickup',
    priority: 2,
    isDefault: false,
    description: 'Nearest shop',
  },
  { brand: 'OTHER', title: 'Bike courier', amount: { value: 9900, currency: 'NOK' }, id: 'bike', priority: 1, isDefault: true },
];
