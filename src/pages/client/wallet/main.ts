import './wallet.css';
import { pageData } from '../shared/page-data.js';
import { followLiveState, type LivePage } from './live-state.js';

const live = pageData<LivePage>();
if (live) followLiveState(live);

// Express and checkout: the total with shipping, and the shipping's name and price, follow the option chosen (the
// server shows the selected one's, each option carries its own, and the server checks the choice).
const FOLLOWS: [string, 'total' | 'shipping' | 'shippingName'][] = [
  ['[data-total-with-shipping]', 'total'],
  ['[data-shipping-amount]', 'shipping'],
  ['[data-shipping-name]', 'shippingName'],
];
document.addEventListener('change', (event) => {
  const input = event.target as HTMLInputElement;
  if (input.name !== 'shippingOptionId') return;
  for (const [selector, key] of FOLLOWS) {
    const text = input.dataset[key];
    if (text) document.querySelectorAll<HTMLElement>(selector).forEach((element) => (element.textContent = text));
  }
});
