package shop.cart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CartTest {
    private Cart cart;

    @BeforeEach
    void setUp() {
        cart = new Cart();
    }

    private void assertTotal(long cents) {
        assertEquals(cents, cart.totalCents());
    }

    @Test
    void emptyCartTotalsZero() {
        assertTotal(0);
        assertThat(cart.items()).isEmpty();
    }

    @Test
    void appliesPercentageCode() {
        cart.add(new Item("book", 4000));
        cart.apply("SAVE10");
        assertEquals(3600, cart.totalCents());
        assertThat(cart.discountCents()).isEqualTo(400);
    }

    @ParameterizedTest
    @CsvSource({"SAVE10, 3600", "SAVE20, 3200"})
    void codes(String code, long cents) {
        cart.add(new Item("book", 4000));
        cart.apply(code);
        assertTotal(cents);
    }

    @Test
    void rejectsUnknownCode() {
        var error = assertThrows(UnknownCodeException.class, () -> cart.apply("NOPE"));
        assertThat(error.getMessage()).contains("NOPE");
    }
}
