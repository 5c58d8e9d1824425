package shop.cart;

import static org.hamcrest.CoreMatchers.is;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThat;

import org.junit.Test;

public class LegacyCartTest {
    @Test
    public void totalsItems() {
        Cart cart = new Cart();
        cart.add(new Item("pen", 150));
        assertEquals(150L, cart.totalCents());
    }

    @Test
    public void countsItems() {
        Cart cart = new Cart();
        cart.add(new Item("pen", 150));
        assertThat(cart.items().size(), is(1));
    }
}
