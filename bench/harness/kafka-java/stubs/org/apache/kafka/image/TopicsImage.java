// Cohort bench stub of Kafka's metadata image (not Kafka's class): topics by id and by name. Kafka's
// coordinator resolves names through TopicIds.CachedTopicResolver, which asks the image once per name
// and id and caches the answer, so the image's own lookup cost stays out of the timed calls.
package org.apache.kafka.image;

import org.apache.kafka.common.Uuid;

import java.util.HashMap;
import java.util.Map;

public final class TopicsImage {
    private final Map<Uuid, TopicImage> byId = new HashMap<>();
    private final Map<String, TopicImage> byName = new HashMap<>();

    public void add(TopicImage topic) {
        byId.put(topic.id(), topic);
        byName.put(topic.name(), topic);
    }

    public TopicImage getTopic(Uuid id) {
        return byId.get(id);
    }

    public TopicImage getTopic(String name) {
        return byName.get(name);
    }
}
