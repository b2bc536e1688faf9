// Cohort bench stub of Kafka's metadata image (not Kafka's class): a topic's id and name, all that
// TopicIds' resolvers read.
package org.apache.kafka.image;

import org.apache.kafka.common.Uuid;

public final class TopicImage {
    private final String name;
    private final Uuid id;

    public TopicImage(String name, Uuid id) {
        this.name = name;
        this.id = id;
    }

    public String name() {
        return name;
    }

    public Uuid id() {
        return id;
    }
}
